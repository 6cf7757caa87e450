# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""Faults injected into a running ibsim fabric (vfsim.Sim) while OpenSM
runs with the plugin, shared by tests/integration/t-faults.py and the soak
(scripts/soak.py).

Every fault has a `name`, a `kind`, `inject(sim)` and `repair(sim)`; both
return once OpenSM has settled (settle(): a SUBNET UP after the change,
then no new sweep for a moment), and return what they saw (seconds, sweeps).
`absent` names the nodes the fault takes out of the fabric while it is
injected (the checks leave them out); `tolerated` the nodes OpenSM may
legitimately lose (a port that drops MADs); `unplanned` the hosts whose
partitions are missing while it lasts, by design; `restores` whether the
repair brings back the tables of before.

ibsim 0.10 console commands used (ibsim/sim_cmd.c of tag ibsim-0.10):
  Unlink "node"[p] / Unlink "node"   unlink one port / every port (traps 128)
  ReLink "node"[p] / ReLink "node"   restore the saved peers
  Guid "node" <guid>                 a new NodeGUID (a CA's port GUIDs
                                     follow: NodeInfo gives guid + port);
                                     no trap: OpenSM sees it at the next
                                     heavy sweep
  Error "node"[p] <0-100> [attr]     drop that share of the MADs ibsim
                                     passes into the port (counted as
                                     receive errors); with attr, only the
                                     SMPs of that attribute the port
                                     answers; 0 clears it
"""

import os
import re
import signal
import time

import vfsim

# lines of the OpenSM log that mean a sweep is under way, and those that
# end one: SUBNET UP, or OpenSM giving up on a sweep that lost MADs (it
# sweeps again on the next trigger); the sa_log lines of a query load are
# neither
PROGRESS_RE = re.compile(
    r"vfabric: partitions: \d+ partitions|routed \d+ switches|"
    r"drop_mgr_remove_port|Discovered new port|forcing a heavy sweep|"
    r"asking for a heavy sweep|Entering DISCOVERING")
UP_RE = re.compile(vfsim.SUBNET_UP_RE)
FAILED_RE = re.compile(r"\] 0x80 -> Errors during initialization$", re.M)
END_RE = re.compile(f"{UP_RE.pattern}|{FAILED_RE.pattern}", re.M)
# how much slower OpenSM runs under a checker (VF_OSM_CHECK=valgrind)
SLOW = 6 if os.environ.get("VF_OSM_CHECK") == "valgrind" else 1
# seconds without a sweep that count as settled (settle())
QUIET = 1.5


def settle(sim, since, timeout=120, quiet=None, osm=None):
    """Wait for the end of a sweep logged after offset `since` (SUBNET UP,
    or OpenSM's "Errors during initialization"), then until no sweep has
    been under way for `quiet` seconds (a sweep asked for meanwhile, by the
    plugin's P_Key check or a SIGHUP that landed in a sweep, runs to its
    end first).  Returns {"seconds", "sweeps": SUBNET UPs, "failed":
    sweeps ended in errors, "up": whether the last one ended in SUBNET
    UP}."""
    t0 = time.monotonic()
    timeout, quiet = timeout * SLOW, (quiet or QUIET) * SLOW
    osm = osm or sim.osms[-1]
    sim.wait_log(END_RE.pattern, since, timeout, osm)
    pos, busy, last = since, True, time.monotonic()
    up = False
    while busy or time.monotonic() - last < quiet:
        if time.monotonic() - t0 > timeout:
            raise vfsim.SimError(f"OpenSM still sweeping after {timeout} s")
        new = vfsim.read_bytes(osm.log, pos)
        new = new[:new.rfind(b"\n") + 1]
        pos += len(new)
        for line in new.decode("utf-8", "replace").splitlines():
            if "vfabric: sa:" in line:
                continue
            if END_RE.search(line):
                busy, last = False, time.monotonic()
                up = bool(UP_RE.search(line))
            elif PROGRESS_RE.search(line):
                busy, last = True, time.monotonic()
        sim._check_osm(osm)
        time.sleep(0.05)
    text = sim.log_text(since, osm)
    return {"seconds": time.monotonic() - t0,
            "sweeps": len(UP_RE.findall(text)),
            "failed": len(FAILED_RE.findall(text)), "up": up}


class Fault:
    """Base class: a fault and its repair on one Sim."""

    kind = "fault"
    absent = frozenset()
    tolerated = frozenset()
    unplanned = frozenset()
    # True when the repair brings the tables back exactly (LFTs, P_Keys)
    restores = True

    def __init__(self, target):
        self.target = target

    @property
    def name(self):
        return f"{self.kind} {self.target}"

    def __repr__(self):
        return self.name

    def inject(self, sim):
        since = sim.log_offset()
        self._inject(sim)
        return self._settled(sim, since)

    def repair(self, sim):
        since = sim.log_offset()
        if not self._repair(sim):
            return {"seconds": 0.0, "sweeps": 0, "failed": 0, "up": True}
        return self._settled(sim, since)

    def _settled(self, sim, since):
        return settle(sim, since)

    def _inject(self, sim):
        raise NotImplementedError

    def _repair(self, sim):
        """Undo the fault; return False when there is nothing to wait
        for (no sweep follows)."""
        raise NotImplementedError


def sighup(sim, osm=None):
    """SIGHUP to an OpenSM we started (its PID): a heavy sweep and a
    re-read of its files."""
    (osm or sim.osms[-1]).popen.send_signal(signal.SIGHUP)


class LinkFlap(Fault):
    """One cable unlinked and relinked `times` times in a row, as fast as
    the console takes it; the cable ends up linked."""

    kind = "link_flap"

    def __init__(self, node, port, times=5):
        super().__init__(f'"{node}"[{port}] x{times}')
        self.node, self.port, self.times = node, port, times

    def _inject(self, sim):
        for _ in range(self.times):
            sim.console(f'Unlink "{self.node}"[{self.port}]')
            sim.console(f'ReLink "{self.node}"[{self.port}]')

    def _repair(self, sim):
        return False


class SwitchDown(Fault):
    """Every port of a switch unlinked (the switch and whatever hangs only
    off it leave the fabric), then relinked."""

    def __init__(self, node, kind, gone=()):
        super().__init__(f'"{node}"')
        self.node, self.kind = node, kind
        self.absent = frozenset([node, *gone])

    def _inject(self, sim):
        sim.console(f'Unlink "{self.node}"')

    def _repair(self, sim):
        sim.console(f'ReLink "{self.node}"')
        return True


def leaf_down(sim, leaf):
    """SwitchDown of a leaf: it and its hosts leave."""
    hosts = [n.id for n in sim.nodes.values() if n.kind == "Hca" and
             {peer for peer, _ in n.ports.values()} == {leaf}]
    return SwitchDown(leaf, "leaf_down", hosts)


def spine_down(sim, spine):
    return SwitchDown(spine, "spine_down")


class GuidChange(Fault):
    """A node replaced in place: a new NodeGUID at the same place (the CA's
    port GUID follows), seen by OpenSM at the next heavy sweep (SIGHUP:
    ibsim sends no trap for it).  OpenSM drops the old port and finds a
    new one, with a new LID; the policy, by NodeDesc, stays.  The repair
    puts the old GUID back: the port gets its old LID (guid2lid)."""

    kind = "guid_change"

    def __init__(self, sim, node, new_guid=None):
        super().__init__(f'"{node}"')
        self.node = node
        self.old = sim.nodes[node].guid
        self.new = new_guid or (self.old ^ 0x00ff000000000000)

    def _set(self, sim, guid):
        out = sim.console(f'Guid "{self.node}" {guid:#x}')
        if "not found" in out or "can't" in out:
            raise vfsim.SimError(f"Guid {self.node}: {out.strip()}")
        sighup(sim)

    def _inject(self, sim):
        self._set(sim, self.new)

    def _repair(self, sim):
        self._set(sim, self.old)
        return True


class MadDrop(Fault):
    """ibsim drops `rate`% of the MADs entering a port (Error command);
    OpenSM sweeps `sweeps` times (SIGHUP) through the loss, and again
    (up to `more` times) until a sweep ends in SUBNET UP: a sweep that
    loses a MAD on every retry ends in "Errors during initialization" and
    OpenSM waits for the next trigger.  The repair sets the rate back to
    0 and sweeps once more."""

    kind = "mad_drop"

    def __init__(self, node, port, rate, sweeps=2, more=10):
        super().__init__(f'"{node}"[{port}] {rate}%')
        self.node, self.port, self.rate = node, port, rate
        self.sweeps, self.more = sweeps, more
        # a port that loses a MAD on every retry may be dropped by OpenSM
        # until the loss stops: a correct reaction, not a lost partition
        self.tolerated = frozenset([node])

    def _error(self, sim, rate):
        out = sim.console(f'Error "{self.node}"[{self.port}] {rate}')
        if "#" in out and ("bad" in out or "not found" in out):
            raise vfsim.SimError(f"Error {self.node}: {out.strip()}")

    def inject(self, sim):
        self._error(sim, self.rate)
        seen = {"seconds": 0.0, "sweeps": 0, "failed": 0, "up": False}
        for i in range(self.sweeps + self.more):
            if i >= self.sweeps and seen["up"]:
                break
            since = sim.log_offset()
            sighup(sim)
            got = self._settled(sim, since)
            for k in ("seconds", "sweeps", "failed"):
                seen[k] += got[k]
            seen["up"] = got["up"]
        return seen

    def _repair(self, sim):
        self._error(sim, 0)
        sighup(sim)
        return True


class NodeDescLost(Fault):
    """A host's NodeDescription MADs all lost (Error with attribute 0x10:
    ibsim drops only those) while it leaves and comes back: OpenSM finds
    it again as a new node without a description ("<unknown>"; it asks
    again only in a light sweep).  The policy goes by NodeDesc: the
    plugin must keep the host's partitions (its last description).  The
    repair clears the error; OpenSM still has no description until a
    light sweep."""

    kind = "nodedesc_lost"

    def __init__(self, node, port=1):
        super().__init__(f'"{node}"[{port}]')
        self.node, self.port = node, port

    def inject(self, sim):
        sim.console(f'Error "{self.node}"[{self.port}] 100 0x10')
        since = sim.log_offset()
        sim.console(f'Unlink "{self.node}"[{self.port}]')
        self._settled(sim, since)
        since = sim.log_offset()
        sim.console(f'ReLink "{self.node}"[{self.port}]')
        return self._settled(sim, since)

    def _repair(self, sim):
        sim.console(f'Error "{self.node}"[{self.port}] 0')
        return False


class NewNodeNoDesc(Fault):
    """A host replaced by one never seen before (a new GUID) whose
    NodeDescription MADs are all lost: the plugin has no description for
    it, leaves it out of the DeviceGroups and says so (ERR VF0119).  The
    repair stops the loss; OpenSM reads the description in its next light
    sweep (sweep_interval > 0) and the plugin's config_poll thread asks
    for the heavy sweep that gives the host its partitions.  The host
    keeps the new GUID (restores False: run it last) unless restore_guid:
    then the repair ends by putting the old one back (SIGHUP)."""

    kind = "new_node_no_desc"

    def __init__(self, sim, node, new_guid=None, port=1,
                 restore_guid=False):
        super().__init__(f'"{node}"')
        self.node, self.port = node, port
        self.old = sim.nodes[node].guid
        self.new = new_guid or (self.old ^ 0x00ee000000000000)
        self.restore_guid = self.restores = restore_guid
        # its partitions are missing while the fault lasts, by design
        self.unplanned = frozenset([node])

    def _inject(self, sim):
        sim.console(f'Error "{self.node}"[{self.port}] 100 0x10')
        sim.console(f'Guid "{self.node}" {self.new:#x}')
        sighup(sim)

    def repair(self, sim):
        """No sweep follows by itself: the heavy sweep that plans the host
        is the plugin's to ask for.  Without one within `wait` seconds,
        "up" is False (and the host keeps no partitions)."""
        since = sim.log_offset()
        sim.console(f'Error "{self.node}"[{self.port}] 0')
        try:
            sim.wait_subnet_up(timeout=30 * SLOW, since=since)
        except vfsim.SimError:
            if not sim.osms[-1].alive():
                raise
            return {"seconds": 30.0 * SLOW, "sweeps": 0, "failed": 0,
                    "up": False}
        seen = self._settled(sim, since)
        if self.restore_guid:
            since = sim.log_offset()
            sim.console(f'Guid "{self.node}" {self.old:#x}')
            sighup(sim)
            back = self._settled(sim, since)
            seen = {k: seen[k] + back[k] for k in ("seconds", "sweeps",
                                                   "failed")} | \
                {"up": seen["up"] and back["up"]}
        return seen


def write_atomic(path, text):
    """Replace a file by rename (a new inode: config_poll sees it)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(text)
    os.rename(tmp, path)


def break_xml(text):
    """The vFabric XML with one broken element: the closing tag of the
    first VirtualFabric misspelt (not well-formed)."""
    i = text.index("</VirtualFabric>")
    return text[:i] + "</VirtualFabrc>" + text[i + len("</VirtualFabric>"):]


class ConfigError(Fault):
    """The vFabric file edited into a syntax error, applied by SIGHUP or
    noticed by the plugin's config_poll (no SIGHUP); the plugin must name
    file and line and keep the last good policy.  The repair writes the
    good file back (the same way)."""

    kind = "config_error"

    def __init__(self, path, sighup_it=True):
        super().__init__(f"{os.path.basename(path)} "
                         f"{'SIGHUP' if sighup_it else 'poll'}")
        self.path, self.sighup_it = path, sighup_it
        self.kind = "config_error_sighup" if sighup_it else \
            "config_error_poll"
        self.good = None

    def _write(self, sim, text):
        write_atomic(self.path, text)
        if self.sighup_it:
            sighup(sim)

    def _inject(self, sim):
        with open(self.path) as fh:
            self.good = fh.read()
        self._write(sim, break_xml(self.good))

    def _repair(self, sim):
        self._write(sim, self.good)
        return True


class PolicySwap(Fault):
    """A valid policy change: the vFabric file replaced by another one
    (e.g. a host moved between tenants) and SIGHUP; the repair puts the
    first one back.  The P_Keys change: answers in between must be the
    old or the new policy's."""

    kind = "policy_change"

    def __init__(self, path, other_text, what):
        super().__init__(what)
        self.path, self.other = path, other_text
        self.good = None

    def _inject(self, sim):
        with open(self.path) as fh:
            self.good = fh.read()
        write_atomic(self.path, self.other)
        sighup(sim)

    def _repair(self, sim):
        write_atomic(self.path, self.good)
        sighup(sim)
        return True


class SighupStorm(Fault):
    """`count` SIGHUPs to OpenSM within about `seconds`: a third of them
    back to back, so that they land in the heavy sweep the first one
    starts, the rest spread over the time.  OpenSM must end with a SUBNET
    UP (SIGHUPs during a sweep coalesce), not crash or stick."""

    kind = "sighup_storm"

    def __init__(self, count=30, seconds=1.5):
        super().__init__(f"{count} in {seconds} s")
        self.count, self.seconds = count, seconds

    def _inject(self, sim):
        burst = self.count // 3
        gap = self.seconds / (self.count - burst)
        for i in range(self.count):
            sighup(sim)
            if i >= burst:
                time.sleep(gap)

    def _repair(self, sim):
        return False
