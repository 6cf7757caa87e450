# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""An exact oracle for fattree's balance on small trees: an integer
program, solved by CBC (python3-pulp), that says whether any routing of
the kind fattree may program keeps every link between switches at or
under a given load.

The routings are those the engine's contract allows (docs/routing.md):
destination-based tables; tiers counted up from the switches with hosts;
toward a destination switch Y, a switch that reaches Y going only down
takes a hop on a shortest down path, any other switch a hop up to a
parent with the shortest up-then-down distance.  The load of a link is
the all-to-all traffic between the hosts' base LIDs that crosses it.

Written from that contract and the fabric (a topogen.Fabric), apart from
the engine: nothing here reads its code or its tables.

The solver runs in a child interpreter, the one that has python3-pulp
(Debian's /usr/bin/python3; $VF_PYTHON overrides), which reads the switch
graph as JSON on stdin: the tests may run under another Python.
"""

import collections
import json
import os
import shutil
import subprocess
import sys


def switch_graph(fab):
    """(hops, hosts) of a topogen.Fabric: every switch's inter-switch
    links as [port, next switch], in port order, and its host count."""
    sw = {n.id for n in fab.switches()}
    hops = {s: [[p, peer] for p, (peer, _) in
                sorted(fab.nodes[s].ports.items()) if peer in sw]
            for s in sw}
    hosts = {s: sum(1 for peer, _ in fab.nodes[s].ports.values()
                    if peer not in sw) for s in sw}
    return hops, hosts


def solver_python():
    """The interpreter with python3-pulp and CBC, or None."""
    for py in (os.environ.get("VF_PYTHON"), "/usr/bin/python3",
               shutil.which("python3")):
        if py and os.access(py, os.X_OK) and subprocess.run(
                [py, "-c", "import pulp, sys; sys.exit("
                 "'COIN_CMD' not in pulp.listSolvers(onlyAvailable=True))"],
                capture_output=True).returncode == 0:
            return py
    return None


def routable_under(fab, load, seconds=300, python=None):
    """True if some allowed routing of fab loads no link above `load`,
    False if none does, None when the solver ran out of time."""
    hops, hosts = switch_graph(fab)
    res = subprocess.run(
        [python or solver_python(), os.path.abspath(__file__)],
        input=json.dumps({"hops": hops, "hosts": hosts, "load": load,
                          "seconds": seconds}),
        capture_output=True, text=True, check=True)
    return {"yes": True, "no": False}.get(res.stdout.strip())


def _tiers(hops, hosts):
    tier = {s: 0 for s in hosts if hosts[s]}
    todo = collections.deque(sorted(tier))
    while todo:
        x = todo.popleft()
        for _, n in hops[x]:
            if n not in tier:
                tier[n] = tier[x] + 1
                todo.append(n)
    return tier


def candidates(hops, hosts):
    """{Y: {switch: [(port, next switch), ...]}}: every switch's allowed
    hops toward each switch Y with hosts."""
    sw = set(hops)
    tier = _tiers(hops, hosts)
    out = {}
    for y in sorted(s for s in sw if hosts[s]):
        down = {y: 0}
        todo = collections.deque([y])
        while todo:
            x = todo.popleft()
            for _, n in hops[x]:
                if tier.get(n, -1) > tier[x] and n not in down:
                    down[n] = down[x] + 1
                    todo.append(n)
        updown = dict(down)
        for x in sorted((s for s in sw if s in tier), key=lambda s: -tier[s]):
            if x in updown:
                continue
            ways = [updown[n] + 1 for _, n in hops[x]
                    if tier.get(n, -1) > tier[x] and n in updown]
            if ways:
                updown[x] = min(ways)
        cand = {}
        for x in updown:
            if x == y:
                continue
            if x in down:
                cand[x] = [(p, n) for p, n in hops[x]
                           if tier.get(n, 99) < tier[x] and
                           down.get(n) == down[x] - 1]
            else:
                cand[x] = [(p, n) for p, n in hops[x]
                           if tier.get(n, -1) > tier[x] and
                           updown.get(n) == updown[x] - 1]
        out[y] = cand
    return out


def solve(hops, hosts, load, seconds):
    """The integer program itself (in the child): "yes", "no" or
    "timeout"."""
    import pulp
    total = sum(hosts.values())
    prob = pulp.LpProblem("fattree_balance", pulp.LpMinimize)
    prob += pulp.lpSum([])
    on_link = collections.defaultdict(list)
    for y, cand in candidates(hops, hosts).items():
        big = total - hosts[y]
        for d in range(hosts[y]):
            through = {x: pulp.LpVariable(f"f_{y}_{d}_{x}".replace("-", "_"),
                                          0, big)
                       for x in sorted(cand)}
            inflow = collections.defaultdict(list)
            for x in sorted(cand):
                picks = []
                for p, n in cand[x]:
                    tag = f"{y}_{d}_{x}_{p}".replace("-", "_")
                    pick = pulp.LpVariable(f"z_{tag}", cat="Binary")
                    flow = pulp.LpVariable(f"g_{tag}", 0, big)
                    # flow = through[x] on the picked hop, else 0
                    prob += flow <= big * pick
                    prob += flow <= through[x]
                    prob += flow >= through[x] - big * (1 - pick)
                    picks.append(pick)
                    on_link[(x, p)].append(flow)
                    inflow[n].append(flow)
                prob += pulp.lpSum(picks) == 1
            for x in cand:
                prob += through[x] == hosts[x] + pulp.lpSum(inflow[x])
    for flows in on_link.values():
        prob += pulp.lpSum(flows) <= load
    status = pulp.LpStatus[prob.solve(pulp.COIN_CMD(msg=0,
                                                    timeLimit=seconds))]
    return {"Optimal": "yes", "Infeasible": "no"}.get(status, "timeout")


if __name__ == "__main__":
    ask = json.load(sys.stdin)
    print(solve(ask["hops"], ask["hosts"], ask["load"], ask["seconds"]))
