// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric: the offline tool.  Routes a topology file with any of our
 * engines into an opensm-lfts.dump, and checks any LFT dump (ours,
 * OpenSM's, or one read back from the switches with dump_fts) for
 * reachability, hop stretch, credit loops and link load.  It is how an
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

#include "routing/engine.h"
#include "routing/lftdump.h"
#include "routing/log.h"
#include "routing/netfile.h"
#include "routing/routecheck.h"
#include "plugin/options.h"

#define EXIT_CHECK 1
#define EXIT_USAGE 2

static const char usage_text[] =
	"usage: vfabric <command> [options]\n"
	"\n"
	"commands:\n"
	"  route --topo NET [--engine NAME] [--lmc N] [-o DUMP] [--check]\n"
	"        [--summary] [--json] [--no-spine-first]\n"
	"        [--core-switches GUID,...] [--route-last GUID,...]\n"
	"        [--dg NAME=ITEM,...]... [--routing-order NAME:NAME...]\n"
	"        [--previous-topo NET0 --previous DUMP0]\n"
	"        route the fabric in NET (an ibsim or ibnetdiscover net file)\n"
	"        and write every switch's LFT in opensm-lfts.dump format to\n"
	"        DUMP (default: standard output).  --check also runs the route\n"
	"        checks and prints them to standard error (or as JSON with\n"
	"        --json).  --summary prints, per switch, how many CA LIDs each\n"
	"        port carries.  Ports without a LID in NET get one, LMC N for\n"
	"        CAs.  --no-spine-first turns SpineFirstRouting off (it keeps\n"
	"        routes through director chassis up/down).  fattree: the core\n"
	"        switches are the top tier (default: tiers counted up from the\n"
	"        switches with hosts); route-last hosts are routed after all\n"
	"        others (e.g. storage), by node or port GUID.\n"
	"        dgshortestpath: --dg defines a device group NAME (letters,\n"
	"        digits, _ - .) of node or port GUIDs (0x...) and NodeDesc\n"
	"        patterns (desc:GLOB, e.g. desc:stor*); repeat it for more\n"
	"        groups.  --routing-order lists up to 8 of them: end ports\n"
	"        are routed group by group (first listed group wins), then\n"
	"        those in no group, each by port GUID; then switch LIDs.\n"
	"        Without it every end port is routed in port GUID order.\n"
	"        --previous-topo/--previous: start from the routing DUMP0 of\n"
	"        fabric NET0 (as the plugin does with route_stability): its\n"
	"        entries stay wherever still valid, so you see what a change\n"
	"        of hosts or links would move; added links rebalance.\n"
	"  check-routes --topo NET --lfts DUMP [--json]\n"
	"        check the LFTs in DUMP (opensm-lfts.dump, dump_fts or ibroute\n"
	"        output) against the fabric in NET: every LID reachable from\n"
	"        every switch and CA, hops versus the shortest path, credit\n"
	"        loops, all-to-all link load.  Exit 1 if anything is unreachable\n"
	"        or a credit loop exists.\n"
	"  engines\n"
	"        list the routing engines\n"
	"\n"
	"  -h, --help      this text;  -V, --version   the version\n";

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
	unsigned lmc;
	bool check, json, summary, no_spine_first;
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
	if (rc == -EINVAL)
		return bad_usage("--dg %s: NAME is letters, digits, '_', '-', '.'; each ITEM a GUID (0x...) or desc:GLOB, separated by commas",
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
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *unknown;
	char *end;
	int ch, rc;

	c->engine = "shortestpath";
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
	if (vf_options_resolve_order(&c->groups, &unknown))
		return bad_usage("--routing-order: no group '%s' (define it with --dg %s=...)",
				 unknown, unknown);
	return 0;
}

static struct vf_fabric *load_topo(const struct cli *c)
{
	struct vf_err err = { "" };
	struct vf_fabric *f = vf_netfile_load(c->topo, c->lmc, &err);

	if (!f)
		fprintf(stderr, "vfabric: %s\n", err.msg);
	return f;
}

static int report_checks(const struct cli *c, const struct vf_fabric *f,
			 const struct vf_lfts *t, FILE *out)
{
	struct vf_route_report r;

	if (vf_route_check(f, t, &r)) {
		fprintf(stderr, "vfabric: out of memory in the route checks\n");
		return EXIT_USAGE;
	}
	if (c->json)
		vf_route_report_json(out, &r);
	else
		vf_route_report_print(out, &r);
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
 * and tables into pf and pt.  0, or EXIT_USAGE after saying why.
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
	*pf = vf_netfile_load(c->prev_topo, c->lmc, &err);
	if (*pf && vf_lftdump_load(c->prev_lfts, *pf, pt, &err)) {
		vf_fabric_destroy(*pf);
		*pf = NULL;
	}
	if (!*pf) {
		fprintf(stderr, "vfabric: %s\n", err.msg);
		return EXIT_USAGE;
	}
	return 0;
}

static int cmd_route(int argc, char **argv)
{
	struct cli c = { 0 };
	const struct vf_engine *e;
	struct vf_route_opts opts;
	struct vf_lfts t = { 0 }, pt = { 0 };
	struct vf_fabric *f, *pf = NULL;
	struct vf_previous prev;
	struct timespec t0, t1;
	int rc = parse_args(argc, argv, &c);

	if (!rc)
		rc = load_previous(&c, &pf, &pt);
	if (rc) {
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
	f = e ? load_topo(&c) : NULL;
	if (!f) {
		rc = e ? EXIT_USAGE :
			 bad_usage("unknown engine '%s' (see 'vfabric engines')",
				   c.engine);
		goto out_free;
	}
	rc = vf_lfts_init(&t, f->num_switches, f->max_lid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!rc)
		rc = e->route(f, &opts, &t);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc) {
		fprintf(stderr, "vfabric: %s cannot route %s: %s\n", e->name,
			c.topo, strerror(-rc));
		rc = EXIT_USAGE;
		goto out_free;
	}
	if (!c.json)
		fprintf(stderr, "%s: %u switches, %u LIDs routed in %.2f ms\n",
			e->name, f->num_switches, f->max_lid,
			(t1.tv_sec - t0.tv_sec) * 1e3 +
			(t1.tv_nsec - t0.tv_nsec) / 1e6);
	rc = write_dump(&c, f, &t);
	if (!rc && c.summary)
		print_summary(c.out ? stdout : stderr, f, &t);
	if (!rc && c.check)
		rc = report_checks(&c, f, &t, c.out ? stdout : stderr);
out_free:
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
	struct vf_fabric *f;
	int rc = parse_args(argc, argv, &c);

	if (rc) {
		cli_free(&c);
		return rc;
	}
	if (!c.lfts)
		return bad_usage("%s needs --lfts DUMP", argv[0]);
	f = load_topo(&c);
	if (!f)
		return EXIT_USAGE;
	if (vf_lftdump_load(c.lfts, f, &t, &err)) {
		fprintf(stderr, "vfabric: %s\n", err.msg);
		rc = EXIT_USAGE;
	} else {
		rc = report_checks(&c, f, &t, stdout);
	}
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
		{ "engines", cmd_engines },
	};

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
	for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	return bad_usage("unknown command '%s'", argv[1]);
}
