// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric: the offline tool.  Routes a topology file with any of our
 * engines into an opensm-lfts.dump, and checks any LFT dump (ours,
 * OpenSM's, or one read back from the switches with dump_fts) for
 * reachability, hop stretch, credit loops and link load (per virtual
 * fabric of a vFabric file with --config).  It is how an
 * administrator tries a change before touching a live fabric.
 *
 * Exit status: 0 fine, 1 the routes failed a check, 2 bad usage or input.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "partition/routegroups.h"
#include "routing/engine.h"
#include "routing/lftdump.h"
#include "routing/lidkeep.h"
#include "common/log.h"
#include "routing/netfile.h"
#include "routing/partload.h"
#include "routing/routecheck.h"
#include "routing/vfjson.h"
#include "plugin/options.h"
#include "tools/cli/arcmd.h"
#include "tools/cli/arsimcmd.h"
#include "tools/cli/cfgcmd.h"
#include "tools/cmdhelp.h"
#include "tools/cli/progress.h"
#include "tools/cli/livefabric.h"
#include "tools/cli/layercmd.h"
#include "routing/vlcheck.h"

#define EXIT_CHECK 1
#define EXIT_USAGE 2
/* route to a terminal: more than this is refused without -o - */
#define TTY_DUMP_MAX 10e6
/* bytes of an opensm-lfts.dump line, about ("0x0001 001 # Channel
 * Adapter portguid 0x0002c90300000011: 'cn0001 HCA-1'") */
#define DUMP_LINE_BYTES 64

#define PROGRESS_TEXT \
	"  route, check-routes and arsim show what they are doing (phase,\n" \
	"  seconds, fattree's pass) on one line of standard error, erased at\n" \
	"  the end, when standard error is a terminal and the work takes\n" \
	"  more than half a second; --quiet: never, --progress: also when it\n" \
	"  is not a terminal.\n"

static const char usage_text[] =
	"usage: vfabric <command> [options]\n"
	"\n"
	"commands:\n"
	"  route --topo NET [--engine NAME] [--lmc N] [-o DUMP] [--check]\n"
	"        [--summary] [--json] [--no-spine-first]\n"
	"        [--core-switches GUID,...] [--route-last GUID,...]\n"
	"        [--dg NAME=ITEM,...]... [--routing-order NAME:NAME...]\n"
	"        [--previous-topo NET0 --previous DUMP0] [--config FILE]\n"
	"        [--links VF] [--vl-layers N [--sl-out FILE]]\n"
	"        [--quiet | --progress]\n"
	"        route the fabric in NET (an ibsim or ibnetdiscover net file)\n"
	"        and write every switch's LFT in opensm-lfts.dump format to\n"
	"        DUMP (default: standard output; to a terminal only when it\n"
	"        is below 10 MB, about switches x LIDs x 64 bytes, or with\n"
	"        -o -).  --check also runs the route checks and prints them\n"
	"        (or as JSON with --json) to standard output, or to standard\n"
	"        error when the dump goes to standard output.  --summary\n"
	"        prints, per switch, how many CA LIDs each port carries, to\n"
	"        the same place.  Ports without a LID in NET get one, LMC N\n"
	"        for CAs.  --no-spine-first turns SpineFirstRouting off (it keeps\n"
	"        routes through director chassis up/down).  fattree: the core\n"
	"        switches are the top tier (default: tiers counted up from the\n"
	"        switches with hosts); route-last hosts are routed after all\n"
	"        others (e.g. storage), by node or port GUID.\n"
	"        dgshortestpath: --dg defines a device group NAME (letters,\n"
	"        digits, _ - .) of node or port GUIDs (0x...) and NodeDesc\n"
	"        patterns (desc:PATTERN as in a vFabric file's NodeDesc, e.g.\n"
	"        desc:stor*, desc:cn[1-64]*); repeat it for more\n"
	"        groups.  --routing-order lists up to 8 of them: end ports\n"
	"        are routed group by group (first listed group wins), then\n"
	"        those in no group, each in shortestpath's order (by the\n"
	"        switch it hangs off); then switch LIDs.  Without it the\n"
	"        tables are shortestpath's.\n"
	"        --previous-topo/--previous: start from the routing DUMP0 of\n"
	"        fabric NET0 (as the plugin does with route_stability): its\n"
	"        entries stay wherever still valid, so you see what a change\n"
	"        of hosts or links would move; added links rebalance.  Ports\n"
	"        without a LID in NET keep the LIDs they had in DUMP0 (by\n"
	"        port GUID; a switch by node GUID), as OpenSM keeps them; new\n"
	"        ports take the lowest free LIDs (a CA's 2^N aligned), never\n"
	"        those of a port NET0 had.  LIDs NET gives are used as they\n"
	"        are.  DUMP can be the previous of the next change.\n"
	"        --config: take CoreSwitches, RouteLast, RoutingOrder and\n"
	"        SpineFirstRouting from a vFabric file's <Sm> section, its\n"
	"        DeviceGroups resolved on NET (the flags above win); with\n"
	"        --check, also the per-VF metrics of check-routes --config\n"
	"        (and --links VF).  --partition-routing off|balance|isolate\n"
	"        (with --config): balance each virtual fabric's routes on\n"
	"        their own, or also keep tenants on switches of their own\n"
	"        (docs/partition-routing.md); default: the file's <Sm>\n"
	"        <PartitionRouting>, else off.\n"
	"        --vl-layers N: split the data routes (CA to CA LID) into\n"
	"        at most N layers, none of which closes a credit loop, and\n"
	"        say how many it took; a pair of host LIDs is on one layer\n"
	"        both ways; layer n travels on SL n, mapped to VL n, and\n"
	"        --check judges credit loops per VL.  Fails (exit 2) when\n"
	"        the routes need more, or loop.  --sl-out FILE: the SL of\n"
	"        every pair of host LIDs not on SL 0, one per line (\"slid\n"
	"        dlid sl\").\n"
	"  check-routes --topo NET --lfts DUMP [--json] [-o DUMP2]\n"
	"        [--config FILE [--links VF]] [--vl-layers N [--sl-out FILE]]\n"
	"        [--path-sls FILE [--sl2vl FILE2]] [--quiet | --progress]\n"
	"        check the LFTs in DUMP (opensm-lfts.dump, dump_fts, dump_lfts\n"
	"        or ibroute output) against the fabric in NET: every LID\n"
	"        reachable from every switch and CA, hops versus the shortest\n"
	"        path, credit loops, all-to-all link load (with LMC, also per\n"
	"        LID offset).\n"
	"        Exit 1 if anything is unreachable or a credit loop exists.\n"
	"        --config: also, per virtual fabric\n"
	"        of that vFabric file (resolved on NET), the all-to-all load of\n"
	"        the ports that may talk in it, the links that VFs without a\n"
	"        common port share, and all VFs together; --links VF lists the\n"
	"        links VF uses with their load.  Ports without a LID in NET\n"
	"        (an ibsim net file) take the ones DUMP names them with (its\n"
	"        port GUID column), as many as DUMP gives a port (its LMC).\n"
	"        DUMP may be 'live': every switch's LFT read with SMPs, each\n"
	"        block up to its LinearFDBTop (dump_fts and ibroute of\n"
	"        infiniband-diags 44 leave out the block of a top LID that is\n"
	"        a multiple of 64).  -o: write the LFTs checked there.\n"
	"        --vl-layers, --sl-out: as for route, on DUMP's routes.\n"
	"        --path-sls FILE [--sl2vl FILE2]: judge credit loops per VL\n"
	"        with the SLs and SL-to-VL tables of a fabric routed by\n"
	"        anyone: FILE has \"slid dlid sl\" lines (PathRecords' SLs,\n"
	"        as --sl-out writes them) or \"switch-guid lid sl\" (the data\n"
	"        entering at that switch for that LID; not listed: SL 0),\n"
	"        FILE2 \"switch-guid in-port out-port\" and 16 VLs (the\n"
	"        numbers smpquery sl2vl prints; without it SL n is on VL n).\n"
	"  check [--strict] FILE [--topo NET]\n"
	"        read a vFabric configuration (opafm.xml style: Applications,\n"
	"        DeviceGroups, QOSGroups, VirtualFabrics, and <Sm> routing\n"
	"        settings, or partitions.conf) as the plugin does; print every\n"
	"        error and warning with file, line and object, all in one\n"
	"        pass, including what a sweep would refuse (bandwidth, SLs,\n"
	"        P_Keys).  A file that defines no VirtualFabric or partition\n"
	"        is an error; a file in neither syntax (an opensm.conf, JSON,\n"
	"        a binary) gets one line saying so.  An element this reader\n"
	"        does not know is a warning naming the closest known one\n"
	"        (\"did you mean NodeDesc?\").  Exit 1 on errors; --strict:\n"
	"        warnings are errors too (as the FM's config_check -s).\n"
	"        --topo: also warn about what only a fabric shows:\n"
	"        DeviceGroups and NodeDesc patterns that select nothing in\n"
	"        NET, ports that a P_Key shared by secure VFs lets reach each\n"
	"        other.\n"
	"  resolve FILE --topo NET [--json] [--sm NODE] [--assign FILE]\n"
	"        [--pkey-cap N] [--allow-both] [--disconnect-unconfigured]\n"
	"        [--alias ALIAS=PORTGUID]... [--emit FILE] [--vls N]\n"
	"        the partitions the plugin would program for FILE on the\n"
	"        fabric in NET: each VF's P_Key and SL, each end port's\n"
	"        P_Keys with the index a fresh port gets them at, and what a\n"
	"        P_Key table of N entries would lose.  --sm: the NODE (see\n"
	"        below) or port GUID the SM runs on (full member\n"
	"        of the default partition); --assign:\n"
	"        the plugin's remembered P_Keys/SLs (read, and updated);\n"
	"        --alias: an SR-IOV alias GUID of a CA port (DeviceGroups may\n"
	"        name it; its P_Keys go to the physical port); --emit: also\n"
	"        write the plain partitions.conf the plugin would give OpenSM.\n"
	"        With QoS VFs (text output): the QoS classes (SL, VL, share,\n"
	"        VLArb weight) and the SL2VL/VLArb tables of a port with N\n"
	"        data VLs (default 8).\n"
	"  explain FILE --topo NET --src NODE --dst NODE [--sid HEX]\n"
	"        [--pkey P] [--sl N] [--sm NODE] [--json]\n"
	"        which Applications, DeviceGroups and virtual fabrics a\n"
	"        PathRecord query from --src to --dst matches, step by step,\n"
	"        and the P_Key, SL, MTU, rate and lifetime it is answered\n"
	"        with (the Omni-Path FM's rules).  Exit 1 if none answers.\n"
	"        --json: one object: source and destination (guid, desc,\n"
	"        port, device_groups), service_id and applications (listed,\n"
	"        unmatched) with --sid, trace (the steps), answers (pkey,\n"
	"        sl, mtu, rate, pkt_life_exp, vf, label; mtu and rate 0:\n"
	"        the path's own).\n"
	"  ar --topo NET --lfts DUMP [--coarse] [--groups N] [-o FILE]\n"
	"        the adaptive-routing port groups the plugin would program\n"
	"        for that routing (an AR dump), and the credit-loop check over\n"
	"        every alternate (docs/adaptive-routing.md).\n"
	"        DUMP may be 'live' (as for check-routes).\n"
	"  arsim --topo NET --lfts DUMP [--ar ARDUMP]\n"
	"        [--pattern perm|all2all|hotspot|shift] [--shift K]\n"
	"        [--seed N] [--runs N] [--fail N | --fail-link NODE:PORT...]\n"
	"        [--algorithm random|greedy|greedyrandom] [--threshold 0-7]\n"
	"        [--rounds N] [--no-backpressure] [--no-notify]\n"
	"        [--engine NAME] [--no-route-stability] [--reroute-lfts FILE]\n"
	"        [--json FILE|-] [--plot PNG] [--quiet | --progress]\n"
	"        flow simulator: the flows of a traffic pattern per link with\n"
	"        the static routes of DUMP and with adaptive routing over the\n"
	"        port groups of ARDUMP (default: computed as 'ar' does);\n"
	"        max/mean link load and their ratio, and that gain under\n"
	"        both congestion models (with backpressure, the default, and\n"
	"        without: --no-backpressure puts that in the table).  --runs:\n"
	"        that many permutations (seeds N, N+1, ...), mean and worst.\n"
	"        --fail N random switch-to-switch links (seeded), or the links\n"
	"        of the named ports (a node GUID, or a CA's port GUID, and a\n"
	"        port number), fail: flows lost static versus AR\n"
	"        (switches notify lost routes; also shown without, the only\n"
	"        model with --no-notify), the load before the SM reacts, and\n"
	"        after it re-routes with the engine in use: --engine NAME,\n"
	"        else the one of ours whose routing of NET DUMP is, else\n"
	"        shortestpath (said in the output); starting from DUMP's\n"
	"        tables as the plugin's route_stability does (from scratch\n"
	"        with --no-route-stability, or when DUMP is none of ours).\n"
	"        --reroute-lfts: write the re-routed LFTs there.\n"
	"        --plot: a PNG of it (needs python3-matplotlib).  Errors are\n"
	"        said once; exit 2 for bad arguments or files, 1 when the run\n"
	"        met an error (e.g. AR alternates that would allow a credit\n"
	"        loop: AR tables left empty, as the plugin leaves them).\n"
	"        DUMP may be 'live' (as for check-routes).\n"
	"  engines\n"
	"        list the routing engines\n"
	"\n"
	PROGRESS_TEXT
	"\n"
	"input, for every command:\n"
	"  NET, wherever a command takes one, is an ibsim net file, the\n"
	"  output of ibnetdiscover, or 'live': the subnet as seen from this\n"
	"  host (libibnetdisc, as ibnetdiscover does), through\n"
	"  --Ca NAME --Port N   the local HCA and port (default: CA= and\n"
	"        Port= of /etc/infiniband-diags/ibdiag.conf, else the first\n"
	"        active port, as infiniband-diags)\n"
	"  --node-name-map FILE infiniband-diags' map ('GUID \"name\"' per\n"
	"        line): more names to match NODEs by (shown names and\n"
	"        DeviceGroups stay the NodeDescs, as in the plugin); default\n"
	"        /etc/rdma/ib-node-name-map if it exists, '' none.\n"
	"  A NODE (--src, --dst, --sm, arsim's --fail-link NODE:PORT) is a\n"
	"  node id of NET, a GUID, a NodeDesc ('cn0002 HCA-1'), a\n"
	"  node-name-map name, or the first word of either ('cn0002', the\n"
	"  host name) when only one node has it; an ambiguous name is an\n"
	"  error listing the candidates.\n"
	"\n"
	"  -h, --help      this text (after a command: that command's);\n"
	"  -V, --version   the version\n";
/* route, check-routes and arsim --help end with it too */
static const char progress_text[] = "\n" PROGRESS_TEXT;

static void usage(FILE *out)
{
	fputs(usage_text, out);
}


static int __attribute__((format(printf, 1, 2)))
bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vfabric: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'vfabric --help'.\n");
	return EXIT_USAGE;
}

struct cli {
	const char *topo, *lfts, *engine, *out;
	const char *prev_topo, *prev_lfts;	/* --previous-topo, --previous */
	const char *config;	/* --config: a vFabric file (groups, classes) */
	const char *links;	/* --links: list the links of this class */
	int partition_routing;	/* --partition-routing, -1 the file's */
	unsigned lmc;
	unsigned vl_layers;	/* --vl-layers: at most this many, 0 off */
	const char *sl_out;	/* --sl-out: the layers' SLs */
	const char *path_sls;	/* --path-sls: SLs given (check-routes) */
	const char *sl2vl;	/* --sl2vl: SL-to-VL tables given */
	bool check, json, summary, no_spine_first;
	enum vf_progress_mode progress;	/* --quiet, --progress */
	struct vf_guid_list core_switches, route_last;
	struct vf_options groups;	/* --dg, --routing-order */
};

static void cli_free(struct cli *c)
{
	free(c->core_switches.guids);
	free(c->route_last.guids);
	vf_options_free(&c->groups);
}

/* --dg NAME=ITEMS: the plugin's dg_NAME=ITEMS. */
static int parse_dg(struct cli *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name;
	int rc;

	if (!eq || eq == arg)
		return bad_usage("--dg takes NAME=ITEM,..., not '%s'", arg);
	name = strndup(arg, eq - arg);
	if (!name)
		return bad_usage("out of memory");
	rc = vf_options_set_dg(&c->groups, name, eq + 1);
	free(name);
	if (rc == -EINVAL && c->groups.dg_why[0])
		return bad_usage("--dg %s: %s", arg, c->groups.dg_why);
	if (rc == -EINVAL)
		return bad_usage("--dg %s: NAME is letters, digits, '_', '-', '.'; each ITEM a GUID (0x...) or desc:PATTERN, separated by commas",
				 arg);
	return rc ? bad_usage("out of memory") : 0;
}

static int parse_routing_order(struct cli *c, const char *arg)
{
	int rc = vf_options_set_routing_order(&c->groups, arg);

	if (rc == -EINVAL)
		return bad_usage("--routing-order takes 1 to %u different group names separated by ':', not '%s'",
				 VF_DG_MAX_ORDER, arg);
	return rc ? bad_usage("out of memory") : 0;
}

static int parse_args(int argc, char **argv, struct cli *c)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "engine", required_argument, NULL, 'e' },
		{ "lmc", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "check", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "summary", no_argument, NULL, 's' },
		{ "no-spine-first", no_argument, NULL, 'S' },
		{ "core-switches", required_argument, NULL, 'C' },
		{ "route-last", required_argument, NULL, 'R' },
		{ "previous-topo", required_argument, NULL, 'P' },
		{ "previous", required_argument, NULL, 'p' },
		/* long only: not in the short option string */
		{ "dg", required_argument, NULL, 'D' },
		{ "routing-order", required_argument, NULL, 'O' },
		{ "config", required_argument, NULL, 'F' },
		{ "links", required_argument, NULL, 'L' },
		{ "partition-routing", required_argument, NULL, 'X' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "progress", no_argument, NULL, 'G' },
		{ "vl-layers", required_argument, NULL, 'V' },
		{ "sl-out", required_argument, NULL, 'W' },
		{ "path-sls", required_argument, NULL, 'Y' },
		{ "sl2vl", required_argument, NULL, 'Z' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *unknown;
	char *end;
	int ch, rc;

	c->engine = "shortestpath";
	c->partition_routing = -1;
	vf_options_default(&c->groups);
	optind = 1;
	while ((ch = getopt_long(argc, argv, "t:l:e:m:o:cjsSC:R:P:p:h", opts, NULL)) !=
	       -1) {
		switch (ch) {
		case 't': c->topo = optarg; break;
		case 'l': c->lfts = optarg; break;
		case 'e': c->engine = optarg; break;
		case 'o': c->out = optarg; break;
		case 'c': c->check = true; break;
		case 'j': c->json = true; break;
		case 's': c->summary = true; break;
		case 'S': c->no_spine_first = true; break;
		case 'P': c->prev_topo = optarg; break;
		case 'p': c->prev_lfts = optarg; break;
		case 'F': c->config = optarg; break;
		case 'L': c->links = optarg; break;
		case 'Q': c->progress = VF_PROGRESS_OFF; break;
		case 'G': c->progress = VF_PROGRESS_ON; break;
		case 'X':
			c->partition_routing =
				vf_partition_routing_parse(optarg);
			if (c->partition_routing < 0)
				return bad_usage("--partition-routing takes off, balance or isolate, not '%s'",
						 optarg);
			break;
		case 'C':
		case 'R':
			if (vf_options_parse_guids(optarg, ch == 'C' ?
						   &c->core_switches :
						   &c->route_last))
				return bad_usage("--%s takes GUIDs separated by commas, not '%s'",
						 ch == 'C' ? "core-switches" :
						 "route-last", optarg);
			break;
		case 'D':
		case 'O':
			rc = ch == 'D' ? parse_dg(c, optarg) :
					 parse_routing_order(c, optarg);
			if (rc)
				return rc;
			break;
		case 'V':
			c->vl_layers = strtoul(optarg, &end, 10);
			if (*end || !*optarg || c->vl_layers < 1 ||
			    c->vl_layers > VF_LAYERS_MAX)
				return bad_usage("--vl-layers takes 1 to %u (data VLs), not '%s'",
						 VF_LAYERS_MAX, optarg);
			break;
		case 'W': c->sl_out = optarg; break;
		case 'Y': c->path_sls = optarg; break;
		case 'Z': c->sl2vl = optarg; break;
		case 'm':
			c->lmc = strtoul(optarg, &end, 10);
			if (*end || c->lmc > 7)
				return bad_usage("--lmc takes 0 to 7, not '%s'",
						 optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (!c->topo)
		return bad_usage("%s needs --topo NET", argv[0]);
	if (c->links && !c->config)
		return bad_usage("--links CLASS needs --config FILE");
	if (c->sl_out && !c->vl_layers)
		return bad_usage("--sl-out FILE goes with --vl-layers N");
	if (c->sl2vl && !c->path_sls)
		return bad_usage("--sl2vl FILE goes with --path-sls FILE");
	if (c->path_sls && c->vl_layers)
		return bad_usage("--path-sls gives the SLs; --vl-layers computes them: one or the other");
	if (c->partition_routing > 0 && !c->config)
		return bad_usage("--partition-routing needs --config FILE (the virtual fabrics)");
	if (vf_options_resolve_order(&c->groups, &unknown))
		return bad_usage("--routing-order: no group '%s' (define it with --dg %s=...)",
				 unknown, unknown);
	return 0;
}

/*
 * --topo NET.  With the previous routing's fabric pf, the ports NET gives
 * no LID keep the ones they had in pf, by GUID, and new ports take free
 * ones, as OpenSM's LID manager does: so that a host leaving does not
 * renumber every LID after it.
 */
static struct vf_fabric *load_topo(const struct cli *c,
				   const struct vf_fabric *pf)
{
	struct vf_err err = { "" };
	struct vf_lid_keeps k = { 0 };
	struct vf_fabric *f = NULL;

	if (pf && vf_lid_keeps_from_fabric(pf, &k))
		snprintf(err.msg, sizeof(err.msg), "out of memory");
	else
		f = vf_cli_topo(c->topo, c->lmc, &k, &err);
	vf_lid_keeps_free(&k);
	if (!f)
		fprintf(stderr, "vfabric: %s\n", err.msg);
	return f;
}

/* --links CLASS: its index in tr, or -1 after saying why. */
static int links_class(const struct cli *c, const struct vf_traffic *tr)
{
	for (unsigned k = 0; k < tr->num_classes; k++) {
		if (strcmp(tr->cls[k].name, c->links))
			continue;
		if (!tr->cls[k].management)
			return (int)k;
		bad_usage("--links %s: management traffic is not measured",
			  c->links);
		return -1;
	}
	fprintf(stderr, "vfabric: --links %s: no such virtual fabric in %s; "
		"there are:", c->links, c->config);
	for (unsigned k = 0; k < tr->num_classes; k++)
		fprintf(stderr, " %s", tr->cls[k].name);
	fputc('\n', stderr);
	return -1;
}

/*
 * The route checks and, with a vFabric config (tr), the per-class metrics
 * after them: text, or one JSON object with the classes under
 * "partitions" (and the --links list under "class_links").
 */
static int report_checks(const struct cli *c, const struct vf_fabric *f,
			 const struct vf_lfts *t, const struct vf_traffic *tr,
			 const struct vf_vl_model *vls, unsigned layers,
			 FILE *out)
{
	struct vf_partload pl = { 0 };
	struct vf_route_report r;
	int k = -1;

	vf_progress_pause(true);
	if (tr && c->links && (k = links_class(c, tr)) < 0)
		return EXIT_USAGE;
	vf_progress_pause(false);
	vf_progress("checking the routes");
	if ((vls ? vf_route_check_vl(f, t, vls, &r) :
		   vf_route_check(f, t, &r)) ||
	    (tr && vf_partload_compute(f, t, tr, &pl))) {
		vf_partload_free(&pl);
		vf_progress_end();
		fprintf(stderr, "vfabric: out of memory in the route checks\n");
		return EXIT_USAGE;
	}
	vf_progress_end();
	if (c->json) {
		struct json_object *o = vf_route_report_json(&r);
		int rc = 0;

		if (layers)
			rc |= vf_json_add(o, "vl_layers",
					  json_object_new_int64(layers));
		if (tr)
			rc |= vf_json_add(o, "partitions",
					  vf_partload_json(&pl, tr));
		if (k >= 0)
			rc |= vf_json_add(o, "class_links",
					  vf_partload_links_json(&pl, f, tr,
								 k));
		if (rc || vf_json_print(out, o, JSON_C_TO_STRING_PLAIN)) {
			json_object_put(o);
			vf_partload_free(&pl);
			fprintf(stderr,
				"vfabric: cannot print the JSON report\n");
			return EXIT_USAGE;
		}
		json_object_put(o);
	} else {
		vf_route_report_print(out, &r);
		if (tr)
			vf_partload_print(out, &pl, tr);
		if (k >= 0)
			vf_partload_links_print(out, &pl, f, tr, k);
	}
	vf_partload_free(&pl);
	return vf_route_report_ok(&r) ? 0 : EXIT_CHECK;
}

/* Per switch: the CA LIDs routed out of each port ("port:count"). */
static void print_summary(FILE *out, const struct vf_fabric *f,
			  const struct vf_lfts *t)
{
	unsigned count[VF_MAX_PORTS + 1];

	for (uint32_t s = 0; s < f->num_switches; s++) {
		const struct vf_node *n = &f->nodes[f->switches[s]];
		const uint8_t *row = vf_lft_row(t, s);

		memset(count, 0, sizeof(count));
		for (unsigned lid = 1; lid <= f->max_lid; lid++) {
			uint32_t owner = vf_fabric_lid_node(f, lid);

			if (owner != VF_NONE && !vf_is_switch(&f->nodes[owner]) &&
			    row[lid] <= VF_MAX_PORTS)
				count[row[lid]]++;
		}
		fprintf(out, "%s:", vf_node_desc(f, n));
		for (unsigned p = 0; p <= n->num_ports; p++)
			if (count[p])
				fprintf(out, " %u:%u", p, count[p]);
		fputc('\n', out);
	}
}

static int write_dump(const struct cli *c, const struct vf_fabric *f,
		      const struct vf_lfts *t)
{
	FILE *out = stdout;
	int rc;

	/* nothing else on the terminal the dump goes to */
	if (out == stdout && (!c->out || !strcmp(c->out, "-")) &&
	    isatty(STDOUT_FILENO))
		vf_progress_end();
	else
		vf_progress("writing %s", c->out ? c->out : "the dump");
	if (c->out && strcmp(c->out, "-")) {
		out = fopen(c->out, "w");
		if (!out) {
			fprintf(stderr, "vfabric: %s: %s\n", c->out,
				strerror(errno));
			return EXIT_USAGE;
		}
	}
	rc = vf_lftdump_write(out, f, t);
	if (out != stdout && fclose(out))
		rc = -errno;
	if (rc) {
		fprintf(stderr, "vfabric: writing %s: %s\n",
			c->out ? c->out : "stdout", strerror(-rc));
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * The previous routing (--previous-topo NET --previous DUMP): its fabric
 * and tables into pf and pt, NET's ports numbered as DUMP names them.
 * 0, or EXIT_USAGE after saying why.
 */
static int load_previous(const struct cli *c, struct vf_fabric **pf,
			 struct vf_lfts *pt)
{
	struct vf_err err = { "" };

	if (!c->prev_topo != !c->prev_lfts)
		return bad_usage("%s", "--previous-topo and --previous go "
				 "together");
	if (!c->prev_topo)
		return 0;
	*pf = vf_cli_routed(c->prev_topo, c->prev_lfts, c->lmc, pt, &err);
	if (!*pf) {
		fprintf(stderr, "vfabric: %s\n", err.msg);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * --config: the file's routing groups (FatTreeTopology, RoutingOrder,
 * SpineFirstRouting) resolved on f; flags given on the command line win.
 */
static int config_groups(const struct cli *c, struct vf_cli_sweep *sw,
			 struct vf_route_groups *g, struct vf_route_opts *o)
{
	const struct vf_resolution *r = NULL;
	int rc;

	if (!c->config)
		return 0;
	if (vf_route_groups_named(sw->c) && !(r = vf_cli_resolution(sw)))
		return EXIT_USAGE;
	rc = vf_route_groups_build(sw->c, r, g);
	if (rc) {
		fprintf(stderr, "vfabric: %s\n", strerror(-rc));
		return EXIT_USAGE;
	}
	vf_route_groups_apply(g, o);
	if (c->no_spine_first)
		o->spine_first = false;
	if (c->core_switches.count)
		o->core_switches = (struct vf_guid_set){
			c->core_switches.guids, c->core_switches.count };
	if (c->route_last.count)
		o->route_last = (struct vf_guid_set){ c->route_last.guids,
						      c->route_last.count };
	if (c->groups.num_routing_order) {
		o->routing_order = c->groups.routing_order;
		o->num_routing_order = c->groups.num_routing_order;
	}
	return 0;
}

/*
 * --config FILE into cfg (initialised either way, for vf_config_free):
 * 0, or EXIT_USAGE after saying why.
 */
static int load_config(const struct cli *c, struct vf_config *cfg,
		       const char *what)
{
	vf_config_init(cfg);
	if (!c->config || !vf_cli_load_config(c->config, cfg))
		return 0;
	fprintf(stderr, "vfabric: %s has errors; not %s\n", c->config, what);
	return EXIT_USAGE;
}

/* With --config: the traffic classes of the sweep into tr, else none. */
static int config_traffic(const struct cli *c, struct vf_cli_sweep *sw,
			  struct vf_traffic *tr, const struct vf_traffic **out)
{
	*out = NULL;
	if (!c->config)
		return 0;
	if (vf_cli_traffic(sw, tr))
		return EXIT_USAGE;
	*out = tr;
	return 0;
}

/* --partition-routing, else the file's <Sm><PartitionRouting>: the
 * classes into tr (and *classes) and the engine options. */
static int partition_routing(const struct cli *c, struct vf_cli_sweep *sw,
			     struct vf_traffic *tr,
			     const struct vf_traffic **classes,
			     struct vf_route_opts *o)
{
	int mode = c->partition_routing >= 0 ? c->partition_routing :
		   c->config ? sw->c->partition_routing : -1;
	int rc;

	if (mode <= VF_PROUTE_OFF)
		return 0;
	rc = config_traffic(c, sw, tr, classes);
	if (rc)
		return rc;
	o->traffic = tr;
	o->partition_routing = (enum vf_partition_routing)mode;
	return 0;
}

/*
 * Without -o, to a terminal: a dump of switches x LIDs lines that would
 * scroll for minutes (6 GB for a 27,648-host tree) is refused unless
 * -o - asks for it.  0, or EXIT_USAGE after saying why.
 */
static int tty_dump_check(const struct cli *c, const struct vf_fabric *f)
{
	double bytes = (double)f->num_switches * (f->max_lid + 1.0) *
		       DUMP_LINE_BYTES;

	if (c->out || !isatty(STDOUT_FILENO) || bytes <= TTY_DUMP_MAX)
		return 0;
	vf_progress_end();
	fprintf(stderr, "vfabric: route: would write about %.0f MB (%u switches x %u LIDs) to the terminal; use -o FILE or redirect (-o - writes it anyway)\n",
		bytes / 1e6, f->num_switches, f->max_lid);
	return EXIT_USAGE;
}

static unsigned count_hosts(const struct vf_fabric *f)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < f->num_nodes; i++)
		n += !vf_is_switch(&f->nodes[i]);
	return n;
}

static int cmd_route(int argc, char **argv)
{
	struct cli c = { 0 };
	const struct vf_engine *e;
	struct vf_route_opts opts;
	struct vf_lfts t = { 0 }, pt = { 0 };
	struct vf_fabric *f, *pf = NULL;
	struct vf_previous prev;
	struct vf_route_groups groups = { .spine_first = -1 };
	struct vf_traffic tr = { 0 };
	const struct vf_traffic *classes = NULL;
	struct vf_cli_sweep sw = { 0 };
	struct vf_layers layers = { 0 };
	struct vf_vl_model vls;
	struct vf_config cfg;
	struct timespec t0, t1;
	int rc = parse_args(argc, argv, &c);

	vf_config_init(&cfg);
	if (!rc && c.links && !c.check)
		rc = bad_usage("--links VF goes with --check");
	if (!rc && c.path_sls)
		rc = bad_usage("--path-sls and --sl2vl go with check-routes");
	if (!rc) {
		vf_progress_setup(c.progress);
		vf_log_set_sink(vf_progress_log_sink, NULL);
	}
	if (!rc && c.prev_topo)
		vf_progress("reading %s", c.prev_topo);
	if (!rc)
		rc = load_previous(&c, &pf, &pt);
	if (!rc)
		rc = load_config(&c, &cfg, "routed");
	if (rc) {
		vf_config_free(&cfg);
		vf_lfts_free(&pt);
		vf_fabric_destroy(pf);
		cli_free(&c);
		return rc;
	}
	vf_route_opts_default(&opts);
	opts.spine_first = !c.no_spine_first;
	opts.core_switches.guids = c.core_switches.guids;
	opts.core_switches.count = c.core_switches.count;
	opts.route_last.guids = c.route_last.guids;
	opts.route_last.count = c.route_last.count;
	opts.routing_order = c.groups.routing_order;
	opts.num_routing_order = c.groups.num_routing_order;
	if (pf) {
		prev.fabric = pf;
		prev.lfts = &pt;
		opts.previous = &prev;
	}
	e = vf_engine_find(c.engine);
	vf_progress("reading %s", c.topo);
	f = e ? load_topo(&c, pf) : NULL;
	if (!f) {
		vf_progress_end();
		rc = e ? EXIT_USAGE :
			 bad_usage("unknown engine '%s' (see 'vfabric engines')",
				   c.engine);
		goto out_free;
	}
	rc = tty_dump_check(&c, f);
	vf_cli_sweep_init(&sw, &cfg, f);
	vf_progress_pause(true);	/* the config's messages */
	if (!rc)
		rc = config_groups(&c, &sw, &groups, &opts);
	if (!rc)
		rc = partition_routing(&c, &sw, &tr, &classes, &opts);
	vf_progress_pause(false);
	if (rc)
		goto out_free;
	rc = vf_lfts_init(&t, f->num_switches, f->max_lid);
	vf_progress("routing %u hosts with %s", count_hosts(f), e->name);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!rc)
		rc = e->route(f, &opts, &t);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc) {
		vf_progress_end();
		fprintf(stderr, "vfabric: %s cannot route %s: %s\n", e->name,
			c.topo, strerror(-rc));
		rc = EXIT_USAGE;
		goto out_free;
	}
	vf_progress_hold();
	if (!c.json)
		fprintf(stderr, "%s: %u switches, %u LIDs routed in %.2f ms\n",
			e->name, f->num_switches, f->max_lid,
			(t1.tv_sec - t0.tv_sec) * 1e3 +
			(t1.tv_nsec - t0.tv_nsec) / 1e6);
	vf_progress_release();
	if (c.vl_layers)
		rc = vf_cli_layers(f, &t, c.vl_layers, c.sl_out, c.json,
				   &layers);
	if (!rc && c.vl_layers && c.config)
		rc = vf_cli_qos_layers(&sw, &layers, c.vl_layers);
	if (!rc)
		rc = write_dump(&c, f, &t);
	if (!rc && c.summary) {
		vf_progress_end();
		print_summary(c.out ? stdout : stderr, f, &t);
	}
	vf_progress_pause(true);
	if (!rc && c.check && !classes)
		rc = config_traffic(&c, &sw, &tr, &classes);
	vf_progress_pause(false);
	if (c.vl_layers)
		vf_layers_vl_model(&layers, &vls);
	if (!rc && c.check)
		rc = report_checks(&c, f, &t, classes,
				   c.vl_layers ? &vls : NULL, layers.num,
				   c.out ? stdout : stderr);
out_free:
	vf_progress_end();
	vf_log_set_sink(NULL, NULL);
	vf_layers_free(&layers);
	vf_cli_sweep_free(&sw);
	vf_traffic_free(&tr);
	vf_config_free(&cfg);
	vf_route_groups_free(&groups);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
	vf_lfts_free(&pt);
	vf_fabric_destroy(pf);
	cli_free(&c);
	return rc;
}

static int cmd_check(int argc, char **argv)
{
	struct cli c = { 0 };
	struct vf_err err = { "" };
	struct vf_lfts t = { 0 };
	struct vf_traffic tr = { 0 };
	const struct vf_traffic *classes = NULL;
	struct vf_cli_sweep sw = { 0 };
	struct vf_fabric *f = NULL;
	struct vf_layers layers = { 0 };
	struct vf_cli_vls given = { 0 };
	struct vf_vl_model vls;
	struct vf_config cfg;
	int rc = parse_args(argc, argv, &c);

	vf_config_init(&cfg);
	if (!rc && !c.lfts)
		rc = bad_usage("%s needs --lfts DUMP", argv[0]);
	if (!rc)
		rc = load_config(&c, &cfg, "checked");
	if (!rc) {
		vf_progress_setup(c.progress);
		vf_log_set_sink(vf_progress_log_sink, NULL);
		vf_progress("reading %s and %s", c.topo, c.lfts);
		f = vf_cli_routed(c.topo, c.lfts, c.lmc, &t, &err);
		if (!f) {
			vf_progress_end();
			fprintf(stderr, "vfabric: %s\n", err.msg);
		}
		rc = f ? 0 : EXIT_USAGE;
	}
	vf_progress_pause(true);
	/* -o: the tables checked (with --lfts live, what the switches hold) */
	if (!rc && c.out)
		rc = write_dump(&c, f, &t);
	vf_cli_sweep_init(&sw, &cfg, f);
	if (!rc)
		rc = config_traffic(&c, &sw, &tr, &classes);
	vf_progress_pause(false);
	if (!rc && c.vl_layers) {
		rc = vf_cli_layers(f, &t, c.vl_layers, c.sl_out, c.json,
				   &layers);
		vf_layers_vl_model(&layers, &vls);
	}
	if (!rc && c.vl_layers && c.config)
		rc = vf_cli_qos_layers(&sw, &layers, c.vl_layers);
	if (!rc && c.path_sls)
		rc = vf_cli_read_vls(f, c.path_sls, c.sl2vl, &given, &vls);
	if (!rc)
		rc = report_checks(&c, f, &t, classes,
				   c.vl_layers || c.path_sls ? &vls : NULL,
				   c.vl_layers ? layers.num : 0, stdout);
	if (given.missing)
		fprintf(stderr, "vfabric: %s gives no SL-to-VL table for %u port pairs the routes cross: taken as VL 0 for every SL\n",
			c.sl2vl, given.missing);
	vf_progress_end();
	vf_log_set_sink(NULL, NULL);
	vf_cli_vls_free(&given);
	vf_layers_free(&layers);
	vf_cli_sweep_free(&sw);
	vf_traffic_free(&tr);
	vf_config_free(&cfg);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
	cli_free(&c);
	return rc;
}

static int cmd_engines(int argc, char **argv)
{
	for (unsigned i = 0; i < vf_num_engines; i++)
		printf("%-14s %s\n", vf_engines[i].name, vf_engines[i].summary);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "route", cmd_route },
		{ "check-routes", cmd_check },
		{ "check", vf_cmd_check_config },
		{ "resolve", vf_cmd_resolve },
		{ "explain", vf_cmd_explain },
		{ "ar", vf_cmd_ar },
		{ "arsim", vf_cmd_arsim },
		{ "engines", cmd_engines },
	};

	argc = vf_cli_global_opts(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("vfabric (opensm-vfabric) %s\n", PACKAGE_VERSION);
		return 0;
	}
	for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		if (vf_wants_help(argc - 1, argv + 1)) {
			vf_command_help(usage_text, "vfabric", cmds[i].name);
			if (strcmp(cmds[i].name, "check") &&
			    strcmp(cmds[i].name, "resolve") &&
			    strcmp(cmds[i].name, "explain") &&
			    strcmp(cmds[i].name, "ar") &&
			    strcmp(cmds[i].name, "engines"))
				fputs(progress_text, stdout);
			puts("\n'vfabric --help' lists every command.");
			return 0;
		}
		return cmds[i].fn(argc - 1, argv + 1);
	}
	return bad_usage("unknown command '%s'", argv[1]);
}
