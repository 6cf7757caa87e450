#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
"""metrics_file= (plugin/metrics.c): the plugin rewrites a Prometheus
textfile-collector file after each sweep.  On a small ibsim fat tree under
a vFabric config, with the fattree engine:

1. after SUBNET UP the file is there, parses as the text exposition
   format (read here by a parser of our own: every line a comment or a
   sample, every family with HELP and TYPE before its samples, no series
   twice, counters ending _total), and no PATH.tmp is left beside it;
2. its values are what the test sees on its own: the engine configured,
   the route check's log line (CA pairs: hosts x (hosts - 1)), the P_Key
   check's line, the configuration from the file, no errors;
3. the SA requests the test sends with vfabric-sa show up after the next
   sweep (SIGHUP): PathRecords answered by exactly the tries sent, a
   request with NumbPath 0 refused as invalid_request, an SLtoVL query
   naming port 255 answered and counted as guarded; sweeps_total went up
   by one and the sweep's time is sane; each sweep built one fabric model
   and resolved the DeviceGroups once;
4. a broken config file (SIGHUP): config_errors_total 1, as the log's
   ERR VF0802 lines, and config_source says last_good;
5. metrics_file in a directory that does not exist: one ERR VF0120 line
   over three sweeps, OpenSM reaches SUBNET UP each time; once the
   directory exists, the next sweep writes the file (and says so).
"""

import math
import os
import re
import signal

import topogen
import vfsim
import vftest

SA = vftest.VFABRIC_SA
CONF = os.path.join(vftest.TOP_SRCDIR, "conf", "vfabric-default.xml")
ENGINE = "fattree"
LEAVES, SPINES, HOSTS = 2, 2, 2

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
SAMPLE_RE = re.compile(rf"^({NAME})(\{{(.*)\}})? (\S+)$")
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def parse_exposition(text):
    """{(name, frozenset of label pairs): value} and a list of problems,
    by the rules of the text exposition format the collector applies."""
    problems, series, help_, type_ = [], {}, {}, {}
    if text and not text.endswith("\n"):
        problems.append("the last line has no newline")
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            parts = line.split(None, 3)
            if len(parts) >= 3 and parts[1] in ("HELP", "TYPE"):
                seen = help_ if parts[1] == "HELP" else type_
                if parts[2] in seen:
                    problems.append(f"line {n}: second {parts[1]} for "
                                    f"{parts[2]}")
                seen[parts[2]] = parts[3] if len(parts) > 3 else ""
                if parts[1] == "TYPE" and seen[parts[2]] not in (
                        "counter", "gauge", "untyped", "summary",
                        "histogram"):
                    problems.append(f"line {n}: bad type {line}")
            continue
        m = SAMPLE_RE.match(line)
        if not m:
            problems.append(f"line {n}: not a sample: {line!r}")
            continue
        name, labels, value = m.group(1), m.group(3) or "", m.group(4)
        pairs, at = [], 0
        while at < len(labels):
            lm = LABEL_RE.match(labels, at)
            if not lm:
                problems.append(f"line {n}: bad labels {labels!r}")
                break
            pairs.append((lm.group(1), lm.group(2)))
            at = lm.end()
        try:
            v = float(value)
        except ValueError:
            problems.append(f"line {n}: bad value {value!r}")
            continue
        if math.isnan(v):
            problems.append(f"line {n}: NaN")
        if name not in help_ or name not in type_:
            problems.append(f"line {n}: {name} has no HELP/TYPE before it")
        key = (name, frozenset(pairs))
        if key in series:
            problems.append(f"line {n}: series {line} given twice")
        series[key] = v
    for name, t in type_.items():
        if not name.startswith("opensm_vfabric_"):
            problems.append(f"{name}: not prefixed opensm_vfabric_")
        if (t == "counter") != name.endswith("_total"):
            problems.append(f"{name}: a {t} {'without' if t == 'counter' else 'with'} _total")
        if not any(k[0] == name for k in series):
            problems.append(f"{name}: HELP/TYPE without samples")
    return series, problems


def value(series, name, **labels):
    return series.get(("opensm_vfabric_" + name,
                       frozenset(labels.items())))


def read_metrics(path):
    try:
        with open(path) as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def wait_sweeps(sim, path, at_least, timeout=60):
    """The parsed file once its sweeps_total reaches at_least."""
    def ready():
        text = read_metrics(path)
        if text is None:
            return None
        series, problems = parse_exposition(text)
        n = value(series, "sweeps_total")
        return (text, series, problems) if n and n >= at_least else None

    return vfsim.wait_until(ready, vfsim.scaled(timeout),
                            f"{path}: sweeps_total >= {at_least}",
                            lambda: sim._check_osm(sim.osms[-1]))


def hup(sim):
    """SIGHUP (a heavy sweep); the log offset before it."""
    since = sim.log_offset()
    sim.osms[-1].popen.send_signal(signal.SIGHUP)
    return since


def sa(sim, args, at="cn0002"):
    """(status name, tries) of one vfabric-sa request."""
    out = sim.run_diag([SA] + args, node=at, check=False, timeout=30)
    m = re.search(r"status 0x[0-9a-f]+ (\S+) records \d+ .*tries (\d+)", out)
    return (m.group(1), int(m.group(2))) if m else (out[:80], 0)


def one_snapshot(tap, series, which):
    """One sweep, one snapshot (plugin/sweep.h): the partitions, the SA's
    policy, the routing groups and the route all came from one fabric
    model and one resolution of the DeviceGroups."""
    got = (value(series, "last_sweep_fabric_models"),
           value(series, "last_sweep_group_resolutions"))
    tap.ok(got == (1.0, 1.0),
           f"{which}: one fabric model built, the DeviceGroups resolved "
           "once (partitions, SA policy, routing groups and routing share "
           "them)", str(got))


def check_format(tap, text, problems, path):
    tap.ok(not problems, "the file is valid text exposition format (HELP "
           "and TYPE per family, samples, no duplicate series, prefixes, "
           "_total counters)", "\n".join(problems[:20]) + "\n" + text)
    left = [f for f in os.listdir(os.path.dirname(path))
            if f != os.path.basename(path)]
    tap.ok(not left, "nothing but the file in its directory (no .tmp)",
           str(left))


def first_run(tap, sim, mdir, hosts):
    path = os.path.join(mdir, "opensm-vfabric.prom")
    config = os.path.join(sim.workdir, "vfabric.xml")
    with open(CONF) as src, open(config, "w") as dst:
        dst.write(src.read())
    sim.start_opensm(conf_lines=vftest.plugin_conf(
        engine=ENGINE,
        options=f"log_level=info config={config} metrics_file={path}"),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    text, series, problems = wait_sweeps(sim, path, 1)
    check_format(tap, text, problems, path)
    log = sim.log_text()

    engines = {dict(k[1]).get("engine"): v for k, v in series.items()
               if k[0] == "opensm_vfabric_routing_engine_info"}
    tap.ok(engines == {ENGINE: 1.0},
           f"routing_engine_info: {ENGINE}, the engine configured, alone",
           str(engines))
    m = re.search(rf"vfabric: {ENGINE} check: unreachable (\d+)/(\d+) CA "
                  r"pairs, (\d+)/(\d+) switch pairs; max stretch (\d+); "
                  r"credit loops (\S+); all-to-all link load max (\d+) avg "
                  r"([\d.]+) max/avg ([\d.]+)", log)
    tap.ok(m is not None, "the route check is logged", vfsim.tail(sim.osms[-1].log))
    if m:
        got = (value(series, "route_check_unreachable_ca_pairs"),
               value(series, "route_check_ca_pairs"),
               value(series, "route_check_unreachable_switch_pairs"),
               value(series, "route_check_switch_pairs"),
               value(series, "route_check_max_stretch_hops"),
               value(series, "route_check_credit_loops"),
               value(series, "link_load_max_routes"))
        want = (float(m.group(1)), float(m.group(2)), float(m.group(3)),
                float(m.group(4)), float(m.group(5)),
                0.0 if m.group(6) == "none" else 1.0, float(m.group(7)))
        tap.ok(got == want, "route check figures: those of the log line",
               f"file {got}\nlog  {want}")
        tap.ok(got[1] == hosts * (hosts - 1) and got[0] == 0,
               f"CA pairs: {hosts} hosts x {hosts - 1}, all reachable",
               str(got))
        avg = value(series, "link_load_avg_routes")
        ratio = value(series, "link_load_max_over_avg_ratio")
        tap.ok(avg is not None and abs(avg - float(m.group(8))) < 0.06 and
               ratio is not None and abs(ratio - float(m.group(9))) < 0.006,
               "link load avg and max/avg: those of the log line",
               f"{avg} {ratio} vs {m.group(8)} {m.group(9)}")
    pk = re.findall(r"vfabric: partitions: P_Key tables of (\d+) end ports "
                    r"verified as planned", log)
    ends = hosts + LEAVES + SPINES      # switch port 0s are end ports too
    tap.ok(pk and value(series, "pkey_ports_verified") == float(pk[-1]) ==
           ends and value(series, "pkey_ports_mismatched") == 0,
           f"P_Key tables: {ends} end ports (hosts and switch port 0s) "
           "verified, as the log says; none mismatched",
           f"{pk} {value(series, 'pkey_ports_verified')}")
    tap.ok(value(series, "pkey_memberships_dropped") == 0 and
           re.search(r"\(0 memberships dropped for P_Key table size\)", log),
           "no membership dropped for capacity, as logged")
    sources = {dict(k[1])["source"]: v for k, v in series.items()
               if k[0] == "opensm_vfabric_config_source"}
    tap.ok(sources.get("file") == 1 and sum(sources.values()) == 1 and
           value(series, "config_errors_total") == 0,
           "the configuration comes from its file, no config error",
           str(sources))
    one_snapshot(tap, series, "the first sweep")
    dur = value(series, "last_sweep_duration_seconds")
    tap.ok(dur is not None and 0 < dur < vfsim.scaled(60),
           "the sweep's duration is there and sane", str(dur))
    stamp = value(series, "last_sweep_timestamp_seconds")
    tap.ok(stamp is not None and
           abs(stamp - os.path.getmtime(path)) < vfsim.scaled(5),
           "the sweep's time: when the file was written, to the second",
           f"{stamp} vs {os.path.getmtime(path)}")

    # what the test sends, counted after the next sweep
    sweeps = value(series, "sweeps_total")
    answered0 = value(series, "sa_requests_answered_total",
                      attribute="PathRecord")
    invalid0 = value(series, "sa_requests_refused_total",
                     reason="invalid_request")
    slvl0 = value(series, "sa_requests_answered_total",
                  attribute="SLtoVLMappingTableRecord")
    guard0 = value(series, "sa_requests_guarded_total",
                   reason="port_beyond_switch")
    lids = hosts_lids(sim)
    dlid = sorted(lids.values())
    sent = [sa(sim, ["path", "--get", "--slid", str(lids["cn0002"]),
                     "--dlid", str(lid)]) for lid in dlid]
    sent += [sa(sim, ["path", "--dlid", str(dlid[0])], at="cn0003")]
    refused = sa(sim, ["path", "--dlid", str(dlid[0]), "--numb-path", "0"])
    sw_lid = switch_lid(sim)
    guard = sa(sim, ["raw", "--attr-id", "0x13", "--method", "0x12",
                     "--comp-mask", "0x5", "--data", f"{sw_lid:04x}00ff"])
    tap.ok(all(s[0] == "SUCCESS" for s in sent) and
           refused[0] == "REQ_INVALID" and guard[0] == "SUCCESS",
           f"{len(sent)} PathRecords answered, NumbPath 0 refused, the "
           "guarded SLtoVL query answered", f"{sent} {refused} {guard}")
    hup(sim)
    text, series, problems = wait_sweeps(sim, path, sweeps + 1)
    check_format(tap, text, problems, path)
    tap.ok(value(series, "sweeps_total") == sweeps + 1,
           "a second sweep (SIGHUP) rewrote the file: sweeps_total + 1",
           f"{sweeps} -> {value(series, 'sweeps_total')}")
    one_snapshot(tap, series, "the SIGHUP sweep")
    tries = sum(s[1] for s in sent)
    got = value(series, "sa_requests_answered_total",
                attribute="PathRecord") - answered0
    tap.ok(got == tries,
           f"PathRecords answered: up by the {tries} requests sent", str(got))
    got = value(series, "sa_requests_refused_total",
                reason="invalid_request") - invalid0
    tap.ok(got == refused[1], "NumbPath 0: refused_total{reason="
           "\"invalid_request\"} up by one", str(got))
    got = (value(series, "sa_requests_answered_total",
                 attribute="SLtoVLMappingTableRecord") - slvl0,
           value(series, "sa_requests_guarded_total",
                 reason="port_beyond_switch") - guard0)
    tap.ok(got == (guard[1], guard[1]), "OutputPortNum 255: answered and "
           "counted as guarded", str(got))
    others = sum(v for k, v in series.items()
                 if k[0] == "opensm_vfabric_sa_requests_refused_total" and
                 dict(k[1])["reason"] != "invalid_request")
    tap.ok(others == 0, "no other refusal", str(others))

    # a broken configuration: refused once, the last good one kept
    sweeps = value(series, "sweeps_total")
    sim.reload_config(config, "<Config><broken", after=r"ERR VF0802")
    text, series, problems = wait_sweeps(sim, path, sweeps + 1)
    sources = {dict(k[1])["source"]: v for k, v in series.items()
               if k[0] == "opensm_vfabric_config_source"}
    errors = len(re.findall(r"ERR VF0802", sim.log_text()))
    tap.ok(value(series, "config_errors_total") == errors == 1 and
           sources.get("last_good") == 1 and sum(sources.values()) == 1,
           "a broken config file: config_errors_total 1 (as the ERR VF0802 "
           "lines), the policy in use is the last good one",
           f"{value(series, 'config_errors_total')} {errors} {sources}")
    sim.stop_opensm()


def hosts_lids(sim):
    """{host name: LID} from ibnetdiscover."""
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    return {n["desc"].split()[0]: n["lid"] for n in nodes.values()
            if n["kind"] == "Ca"}


def switch_lid(sim):
    nodes = vfsim.parse_ibnetdiscover(open(sim.discover()).read())
    return min(n["lid"] for n in nodes.values() if n["kind"] == "Switch")


def missing_dir(tap, sim, mdir):
    path = os.path.join(mdir, "not-yet", "opensm-vfabric.prom")
    sim.start_opensm(conf_lines=vftest.plugin_conf(
        engine=ENGINE,
        options=f"log_level=info config={CONF} metrics_file={path}"),
        plugin_dir=vftest.PLUGIN_DIR)
    sim.wait_subnet_up()
    sim.wait_log(r"ERR VF0120: cannot write metrics_file")
    since = hup(sim)
    sim.wait_subnet_up(since=since)
    # the plugin's SUBNET_UP handler runs after OpenSM logs SUBNET UP: the
    # next sweep's plan line comes after it
    since = hup(sim)
    sim.wait_subnet_up(since=since)
    errs = re.findall(r"ERR VF0120: cannot write metrics_file (\S+): (.*);",
                      sim.log_text())
    tap.ok(len(errs) == 1 and errs[0][0] == path and
           "No such file" in errs[0][1],
           "a missing directory: one ERR VF0120 over three sweeps, naming "
           "the file and why", str(errs))
    tap.ok(sim.subnet_up_count() >= 3 and sim.osms[-1].alive(),
           "OpenSM reaches SUBNET UP each time all the same")
    os.makedirs(os.path.dirname(path))
    hup(sim)
    text, series, problems = wait_sweeps(sim, path, 1)
    check_format(tap, text, problems, path)
    tap.ok(re.search(rf"vfabric: metrics: {re.escape(path)} written again",
                     sim.log_text()),
           "once the directory exists the next sweep writes it, and says so")
    sim.stop_opensm()


def main():
    tap = vfsim.Tap()
    vftest.start(tap)
    fab = topogen.fattree2(leaves=LEAVES, spines=SPINES, hosts=HOSTS)
    with vfsim.Sim(fab, "metrics", tap=tap) as sim:
        mdir = os.path.join(sim.workdir, "textfile")
        os.makedirs(mdir)
        sim.start_ibsim()
        first_run(tap, sim, mdir, LEAVES * HOSTS)
        missing_dir(tap, sim, os.path.join(sim.workdir, "gone"))
    tap.done()


if __name__ == "__main__":
    main()
