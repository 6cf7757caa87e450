// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric arsim: the flow simulator (routing/arflow.h) on any topology,
 * LFT dump and AR dump, so an admin sees what adaptive routing would do
 * for a traffic pattern, and what a failed cable costs before and after
 * the SM reacts, without touching the fabric.  --plot hands the JSON to
 * arplot.py (matplotlib) for a PNG.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "routing/arflow.h"
#include "routing/engine.h"
#include "routing/lftdump.h"
#include "routing/lidkeep.h"
#include "common/log.h"
#include "routing/vfjson.h"
#include "tools/cli/arsimcmd.h"
#include "tools/cli/progress.h"
#include "tools/cli/livefabric.h"

#define EXIT_PLOT 1
#define EXIT_FOUND 1	/* an error in the run (said), results shown */
#define EXIT_USAGE 2
#define MAX_FAIL_LINKS 64

extern char **environ;

static const char usage_line[] =
	"usage: vfabric arsim --topo NET --lfts DUMP [--ar ARDUMP]\n"
	"       [--pattern perm|all2all|hotspot|shift] [--shift K] [--seed N]\n"
	"       [--runs N] [--fail N | --fail-link NODE:PORT...]\n"
	"       [--algorithm random|greedy|greedyrandom] [--threshold 0-7]\n"
	"       [--rounds N] [--no-backpressure] [--no-notify]\n"
	"       [--engine NAME] [--no-route-stability] [--reroute-lfts FILE]\n"
	"       [--json FILE|-] [--plot PNG] [--quiet | --progress]\n";

struct arsim_args {
	const char *topo, *lfts, *ardump, *json, *plot;
	const char *engine, *reroute_out;	/* --engine, --reroute-lfts */
	bool no_stability;			/* --no-route-stability */
	enum vf_progress_mode progress;		/* --quiet, --progress */
	enum vf_flow_pattern pattern;
	unsigned shift, runs, fail_random, num_fail_links;
	uint32_t seed;
	const char *fail_links[MAX_FAIL_LINKS];
	struct vf_arflow_params prm;
};

/* Mean and worst over the runs of one measure. */
struct agg {
	double sum;
	double worst;
};

static void agg_add(struct agg *a, double v)
{
	a->sum += v;
	if (v > a->worst)
		a->worst = v;
}

struct arsim_result {
	uint32_t flows, links;
	struct agg s_max, s_mean, s_used, a_max, a_mean, a_used;
	struct agg o_max;	/* AR under the other backpressure model */
	/* with failed links */
	struct agg s_lost, a_lost, s_fmax, a_fmax, rr_smax, rr_amax, rr_lost;
	struct agg n_lost, n_fmax;	/* AR without notification */
	uint32_t *hist_s, *hist_a;	/* first run: links per load */
	unsigned hist_len;
	struct { unsigned s_max, a_max; } *per_run;
};

/* What the SM programs after the failure, and how it was chosen. */
struct reroute {
	const struct vf_engine *e;
	const char *why;	/* "option", "detected" or "default" */
	bool stability;		/* from the tables before */
	struct vf_lfts t;
	struct vf_ar_tables ar;
};

/* One line saying what is wrong, and where the usage is. */
static int __attribute__((format(printf, 1, 2)))
bad(const char *fmt, ...)
{
	va_list ap;

	vf_progress_end();
	fprintf(stderr, "vfabric: arsim: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'vfabric arsim --help'.\n");
	return EXIT_USAGE;
}

/*
 * The library's messages during a run: each said once (the AR tables of
 * the fabric and of its re-routing, and the engines tried, would repeat
 * the same credit loop), errors counted for the exit status.
 */
struct log_once {
	char last[8][256];
	unsigned n, errors;
};

static void log_once_sink(void *ctx, enum vf_log_level level,
			  const char *msg)
{
	static const char *const names[] = { "error", "warning", "info",
					     "debug" };
	struct log_once *l = ctx;

	for (unsigned i = 0; i < l->n && i < 8; i++)
		if (!strncmp(l->last[i], msg, sizeof(l->last[i]) - 1))
			return;
	snprintf(l->last[l->n++ % 8], sizeof(l->last[0]), "%s", msg);
	l->errors += level == VF_LOG_ERROR;
	vf_progress_hold();
	fprintf(stderr, "vfabric: %s: %s\n", names[level], msg);
	vf_progress_release();
}

static int parse_uint(const char *s, unsigned max, unsigned *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || x > max)
		return -1;
	*v = (unsigned)x;
	return 0;
}

static int parse_algorithm(const char *s, enum vf_ar_algorithm *a)
{
	static const char *const names[] = { "random", "greedy",
					     "greedyrandom" };

	for (unsigned i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			*a = (enum vf_ar_algorithm)i;
			return 0;
		}
	return -1;
}

static const char *algorithm_name(enum vf_ar_algorithm a)
{
	return a == VF_AR_RANDOM ? "random" :
	       a == VF_AR_GREEDY ? "greedy" : "greedyrandom";
}

static int parse(int argc, char **argv, struct arsim_args *a)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "ar", required_argument, NULL, 'a' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "shift", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 's' },
		{ "runs", required_argument, NULL, 'r' },
		{ "fail", required_argument, NULL, 'f' },
		{ "fail-link", required_argument, NULL, 'F' },
		{ "algorithm", required_argument, NULL, 'A' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "rounds", required_argument, NULL, 'R' },
		{ "no-backpressure", no_argument, NULL, 'B' },
		{ "no-notify", no_argument, NULL, 'N' },
		{ "engine", required_argument, NULL, 'e' },
		{ "no-route-stability", no_argument, NULL, 'S' },
		{ "reroute-lfts", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "progress", no_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int ch, p;

	vf_arflow_params_default(&a->prm);
	a->pattern = VF_FLOW_PERM;
	a->runs = 1;
	a->seed = 1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 't': a->topo = optarg; break;
		case 'l': a->lfts = optarg; break;
		case 'a': a->ardump = optarg; break;
		case 'j': a->json = optarg; break;
		case 'P': a->plot = optarg; break;
		case 'B': a->prm.backpressure = false; break;
		case 'N': a->prm.notify = false; break;
		case 'S': a->no_stability = true; break;
		case 'o': a->reroute_out = optarg; break;
		case 'Q': a->progress = VF_PROGRESS_OFF; break;
		case 'G': a->progress = VF_PROGRESS_ON; break;
		case 'e':
			if (!vf_engine_find(optarg))
				return bad("unknown engine '%s' (see 'vfabric engines')",
					   optarg);
			a->engine = optarg;
			break;
		case 'p':
			p = vf_flow_pattern_parse(optarg);
			if (p < 0)
				return bad("--pattern takes perm, all2all, hotspot or shift, not '%s'",
					   optarg);
			a->pattern = (enum vf_flow_pattern)p;
			break;
		case 'k':
			if (parse_uint(optarg, UINT_MAX, &a->shift) || !a->shift)
				return bad("--shift takes a positive number, not '%s'",
					   optarg);
			break;
		case 's':
			if (parse_uint(optarg, UINT32_MAX, &a->seed))
				return bad("--seed takes a number, not '%s'",
					   optarg);
			break;
		case 'r':
			if (parse_uint(optarg, 10000, &a->runs) || !a->runs)
				return bad("--runs takes 1 to 10000, not '%s'",
					   optarg);
			break;
		case 'f':
			if (parse_uint(optarg, 100000, &a->fail_random))
				return bad("--fail takes a number of links, not '%s'",
					   optarg);
			break;
		case 'F':
			if (a->num_fail_links == MAX_FAIL_LINKS)
				return bad("%s", "--fail-link: at most 64 links");
			a->fail_links[a->num_fail_links++] = optarg;
			break;
		case 'A':
			if (parse_algorithm(optarg, &a->prm.sel.algorithm))
				return bad("--algorithm takes random, greedy or greedyrandom, not '%s'",
					   optarg);
			break;
		case 'T':
			if (parse_uint(optarg, 7, &a->prm.sel.threshold))
				return bad("--threshold takes 0 to 7, not '%s'",
					   optarg);
			break;
		case 'R':
			if (parse_uint(optarg, 100, &a->prm.rounds))
				return bad("--rounds takes 0 to 100, not '%s'",
					   optarg);
			break;
		case 'h':
			fputs(usage_line, stdout);
			exit(0);
		default:	/* getopt said what */
			fputs("Try 'vfabric arsim --help'.\n", stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		return bad("unexpected argument '%s'", argv[optind]);
	if (!a->topo || !a->lfts)
		return bad("%s", "needs --topo NET and --lfts DUMP");
	if (a->fail_random && a->num_fail_links)
		return bad("%s", "--fail N and --fail-link go separately");
	if (a->shift && a->pattern != VF_FLOW_SHIFT)
		return bad("%s", "--shift goes with --pattern shift");
	if (a->reroute_out && !a->fail_random && !a->num_fail_links)
		return bad("%s", "--reroute-lfts goes with --fail or --fail-link");
	return 0;
}

/*
 * --fail-link NODE:PORT into down[]: NODE a node GUID or any name
 * vf_cli_find_node() takes (NodeDesc, mapped name, host name).
 */
static int fail_link(const struct vf_fabric *f, const char *spec, bool *down)
{
	const char *colon = strrchr(spec, ':');
	unsigned long long guid;
	unsigned port;
	uint32_t node, slot;
	char *end, name[128], what[160];

	if (!colon || colon == spec ||
	    parse_uint(colon + 1, VF_MAX_PORTS, &port))
		return bad("--fail-link takes NODE:PORT, not '%s'", spec);
	errno = 0;
	guid = strtoull(spec, &end, 0);
	if (!errno && end == colon) {
		node = vf_fabric_find_guid(f, guid);
		/* a CA's port GUID, as LFT dumps name it, names its node */
		slot = node == VF_NONE ? vf_fabric_end_port(f, guid) : VF_NONE;
		if (slot != VF_NONE)
			node = f->ports[slot].node;
		if (node == VF_NONE)
			return bad("--fail-link %s: no node or port with that GUID",
				   spec);
	} else {
		snprintf(name, sizeof(name), "%.*s", (int)(colon - spec),
			 spec);
		snprintf(what, sizeof(what), "--fail-link %s", spec);
		node = vf_cli_find_node(f, name, what);
		if (node == VF_NONE)
			return EXIT_USAGE;
	}
	slot = vf_fabric_port(f, node, port);
	if (!port || slot == VF_NONE || f->ports[slot].remote == VF_NONE)
		return bad("--fail-link %s: no link on that port", spec);
	vf_arflow_fail(f, down, slot);
	return 0;
}

/* The AR tables: --ar's dump, else computed as `vfabric ar` does. */
static int ar_tables(const struct arsim_args *a, const struct vf_fabric *f,
		     const struct vf_lfts *t, struct vf_ar_tables *ar)
{
	struct vf_err err = { "" };
	struct vf_ar_config cfg;

	if (a->ardump) {
		if (!vf_ar_load(a->ardump, f, ar, &err))
			return 0;
		vf_progress_end();
		fprintf(stderr, "vfabric: %s\n", err.msg);
		return EXIT_USAGE;
	}
	vf_ar_config_default(&cfg);
	cfg.enable = cfg.fine_grained = true;
	if (!vf_ar_compute(f, t, &cfg, NULL, ar))
		return 0;
	vf_progress_end();
	fprintf(stderr, "vfabric: out of memory\n");
	return EXIT_USAGE;
}

/* Links per load of the fabric links: hist[load]++. */
static uint32_t *histogram(const struct vf_fabric *f, const bool *down,
			   const uint32_t *loads, unsigned len)
{
	uint32_t *h = calloc(len, sizeof(*h));

	for (uint32_t p = 0; h && p < f->num_ports; p++) {
		uint32_t r = f->ports[p].remote;

		if (r == VF_NONE || (down && down[p]) ||
		    !vf_is_switch(&f->nodes[f->ports[p].node]) ||
		    !vf_is_switch(&f->nodes[f->ports[r].node]))
			continue;
		h[loads[p] < len - 1 ? loads[p] : len - 1]++;
	}
	return h;
}

/*
 * Which of our engines routes f, intact and from scratch, exactly as t
 * does (so made the tables, as far as we can tell), or NULL.
 */
static const struct vf_engine *detect_engine(const struct vf_fabric *f,
					     const struct vf_lfts *t)
{
	size_t size = (size_t)f->num_switches * (f->max_lid + 1u);
	enum vf_log_level level = vf_log_get_level();
	const struct vf_engine *found = NULL;
	struct vf_route_opts o;

	/* trial routings: their notes (fattree's fallback) are not news */
	vf_log_set_level(VF_LOG_ERROR);
	vf_route_opts_default(&o);
	for (unsigned i = 0; !found && i < vf_num_engines; i++) {
		struct vf_lfts mine = { 0 };

		if (!vf_lfts_init(&mine, f->num_switches, f->max_lid) &&
		    !vf_engines[i].route(f, &o, &mine) &&
		    !memcmp(mine.port, t->port, size))
			found = &vf_engines[i];
		vf_lfts_free(&mine);
	}
	vf_log_set_level(level);
	return found;
}

/*
 * The engine that re-routes: --engine, else the one whose routing DUMP
 * is, else shortestpath.  From the tables before (route_stability, the
 * plugin's default) unless --no-route-stability or they are not ours.
 */
static void choose_engine(const struct arsim_args *a,
			  const struct vf_fabric *f, const struct vf_lfts *t,
			  struct reroute *rr)
{
	rr->why = "option";
	rr->e = a->engine ? vf_engine_find(a->engine) : NULL;
	if (!rr->e) {
		rr->why = "detected";
		rr->e = detect_engine(f, t);
	}
	if (!rr->e) {
		rr->why = "default";
		rr->e = vf_engine_find("shortestpath");
	}
	rr->stability = !a->no_stability && strcmp(rr->why, "default");
}

static int write_reroute(const struct arsim_args *a,
			 const struct vf_fabric *f, const struct vf_lfts *t)
{
	FILE *out = fopen(a->reroute_out, "w");
	int rc = out ? vf_lftdump_write(out, f, t) : -errno;

	if (out && fclose(out) && !rc)
		rc = -errno;
	if (rc) {
		vf_progress_end();
		fprintf(stderr, "vfabric: arsim: %s: %s\n", a->reroute_out,
			strerror(-rc));
	}
	return rc ? EXIT_USAGE : 0;
}

/* The SM's routing and AR tables once it sees the failed links. */
static int plan_reroute(const struct arsim_args *a, struct vf_fabric *f,
			const struct vf_lfts *t, const bool *down,
			struct reroute *rr)
{
	struct vf_previous prev = { f, t };
	int rc;

	choose_engine(a, f, t, rr);
	vf_progress("re-routing without the failed links (%s)", rr->e->name);
	rc = vf_arflow_reroute(f, down, rr->e, rr->stability ? &prev : NULL,
			       &rr->t, &rr->ar);
	if (rc) {
		vf_progress_end();
		fprintf(stderr, "vfabric: arsim: %s cannot re-route %s without the failed links: %s\n",
			rr->e->name, a->topo, strerror(-rc));
		return EXIT_USAGE;
	}
	return a->reroute_out ? write_reroute(a, f, &rr->t) : 0;
}

/* One run: the pattern with seed, static and AR, with and without
 * failures (AR also without notification, to show what it saves); the
 * first run also keeps the load histograms. */
static int one_run(const struct arsim_args *a, struct vf_fabric *f,
		   const struct vf_lfts *t, const struct vf_ar_tables *ar,
		   const bool *down, const struct reroute *rr, unsigned run,
		   struct arsim_result *res)
{
	struct vf_arflow_params prm = a->prm, quiet, other;
	struct vf_arflow_stats s, d, o, fs, fa, fn, rs, ra;
	uint32_t *ls = NULL, *la = NULL;
	struct vf_flows fl;
	int rc;

	prm.seed = a->seed + run;
	other = prm;
	other.backpressure = !prm.backpressure;
	rc = vf_flows_make(f, a->pattern, a->seed + run, a->shift, &fl);
	if (rc == -EINVAL) {
		vf_progress_end();
		fprintf(stderr, "vfabric: arsim: %s: %s\n", a->topo,
			a->pattern == VF_FLOW_SHIFT && a->shift ?
			"the shift is a multiple of the number of end ports" :
			"fewer than two end ports with a LID");
		return EXIT_USAGE;
	}
	ls = calloc(f->num_ports + 1, sizeof(*ls));
	la = calloc(f->num_ports + 1, sizeof(*la));
	if (rc || !ls || !la ||
	    vf_arflow_static(f, t, &fl, NULL, ls, &s) ||
	    vf_arflow_adaptive(f, t, ar, &fl, NULL, &prm, la, &d) ||
	    vf_arflow_adaptive(f, t, ar, &fl, NULL, &other, NULL, &o))
		goto nomem;
	/* tables of another fabric route nothing: no figure would mean a thing */
	if (fl.n && s.unrouted == fl.n) {
		vf_progress_end();
		fprintf(stderr, "vfabric: arsim: %s routes none of the %u flows on %s (the tables of another fabric?)\n",
			a->lfts, (unsigned)fl.n, a->topo);
		free(ls);
		free(la);
		vf_flows_free(&fl);
		return EXIT_USAGE;
	}
	res->flows = fl.n;
	res->links = s.links;
	agg_add(&res->s_max, s.max);
	agg_add(&res->s_mean, s.mean);
	agg_add(&res->s_used, s.used);
	agg_add(&res->a_max, d.max);
	agg_add(&res->a_mean, d.mean);
	agg_add(&res->a_used, d.used);
	agg_add(&res->o_max, o.max);
	res->per_run[run].s_max = s.max;
	res->per_run[run].a_max = d.max;
	if (!run) {
		res->hist_len = (s.max > d.max ? s.max : d.max) + 1;
		res->hist_s = histogram(f, NULL, ls, res->hist_len);
		res->hist_a = histogram(f, NULL, la, res->hist_len);
		if (!res->hist_s || !res->hist_a)
			goto nomem;
	}
	if (down) {
		if (vf_arflow_static(f, t, &fl, down, NULL, &fs) ||
		    vf_arflow_adaptive(f, t, ar, &fl, down, &prm, NULL, &fa))
			goto nomem;
		quiet = prm;
		quiet.notify = false;
		if (!prm.notify)
			fn = fa;
		else if (vf_arflow_adaptive(f, t, ar, &fl, down, &quiet, NULL,
					    &fn))
			goto nomem;
		if (vf_arflow_static(f, &rr->t, &fl, down, NULL, &rs) ||
		    vf_arflow_adaptive(f, &rr->t, &rr->ar, &fl, down, &prm,
				       NULL, &ra))
			goto nomem;
		agg_add(&res->s_lost, fs.lost);
		agg_add(&res->a_lost, fa.lost);
		agg_add(&res->s_fmax, fs.max);
		agg_add(&res->a_fmax, fa.max);
		agg_add(&res->n_lost, fn.lost);
		agg_add(&res->n_fmax, fn.max);
		agg_add(&res->rr_smax, rs.max);
		agg_add(&res->rr_amax, ra.max);
		agg_add(&res->rr_lost, rs.lost + rs.unrouted);
	}
	free(ls);
	free(la);
	vf_flows_free(&fl);
	return 0;
nomem:
	vf_progress_end();
	fprintf(stderr, "vfabric: out of memory\n");
	free(ls);
	free(la);
	vf_flows_free(&fl);
	return EXIT_USAGE;
}

static double mean(const struct arsim_args *a, const struct agg *g)
{
	return g->sum / a->runs;
}

static double ratio(double s, double d)
{
	return d > 0 ? s / d : 0;
}

/* AR max under the backpressure model (bp) or without it. */
static double ar_max_model(const struct arsim_args *a,
			   const struct arsim_result *r, bool bp)
{
	return mean(a, bp == a->prm.backpressure ? &r->a_max : &r->o_max);
}

/*
 * The gain hangs on the congestion model: say which figure is which, the
 * table's adaptive column first.
 */
static void print_gain(FILE *out, const struct arsim_args *a,
		       const struct arsim_result *r)
{
	bool bp = a->prm.backpressure;
	double s = mean(a, &r->s_max);

	fprintf(out, "AR gain        static/AR max %.2f %s backpressure (the adaptive column), %.2f %s it (AR max %.2f)\n",
		ratio(s, ar_max_model(a, r, bp)), bp ? "with" : "without",
		ratio(s, ar_max_model(a, r, !bp)), bp ? "without" : "with",
		ar_max_model(a, r, !bp));
}

static const char *why_text(const struct reroute *rr)
{
	if (!strcmp(rr->why, "option"))
		return "--engine";
	if (!strcmp(rr->why, "detected"))
		return "DUMP is its routing of NET";
	return "default: DUMP is none of our engines' routing of NET; --engine NAME names the one in use";
}

static void print_reroute(FILE *out, const struct reroute *rr)
{
	fprintf(out, "re-route       %s (%s), %s\n", rr->e->name,
		why_text(rr), rr->stability ?
		"from the tables before (route stability)" : "from scratch");
}

static void print_failed(FILE *out, const struct vf_fabric *f,
			 const bool *down)
{
	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct vf_port *q = &f->ports[p], *r;

		if (!down[p] || q->remote == VF_NONE || q->remote < p)
			continue;
		r = &f->ports[q->remote];
		fprintf(out, "failed link    %s/%u (0x%016llx:%u) - %s/%u\n",
			vf_node_desc(f, &f->nodes[q->node]), q->num,
			(unsigned long long)f->nodes[q->node].guid, q->num,
			vf_node_desc(f, &f->nodes[r->node]), r->num);
	}
}

static void print_table(FILE *out, const struct arsim_args *a,
			const struct arsim_result *r,
			const struct vf_fabric *f, const bool *down,
			const struct reroute *rr)
{
	fprintf(out, "pattern        %s, %u flows%s, %u run%s from seed %u\n",
		vf_flow_pattern_name(a->pattern), r->flows,
		a->runs > 1 ? " per run" : "", a->runs, a->runs > 1 ? "s" : "",
		a->seed);
	fprintf(out, "adaptive       %s, threshold %u, %u rounds, backpressure %s, notification %s; tables %s\n",
		algorithm_name(a->prm.sel.algorithm), a->prm.sel.threshold,
		a->prm.rounds, a->prm.backpressure ? "on" : "off",
		a->prm.notify ? "on" : "off",
		a->ardump ? a->ardump : "computed (fine-grained)");
	fprintf(out, "fabric links   %u directed switch-to-switch links\n",
		r->links);
	fprintf(out, "%-14s %10s %10s %10s\n", "", "static", "adaptive",
		"static/AR");
	fprintf(out, "%-14s %10.2f %10.2f %10.2f\n", "max load",
		mean(a, &r->s_max), mean(a, &r->a_max),
		ratio(mean(a, &r->s_max), mean(a, &r->a_max)));
	if (a->runs > 1)
		fprintf(out, "%-14s %10.0f %10.0f\n", "worst max",
			r->s_max.worst, r->a_max.worst);
	fprintf(out, "%-14s %10.2f %10.2f\n", "mean load",
		mean(a, &r->s_mean), mean(a, &r->a_mean));
	fprintf(out, "%-14s %10.1f %10.1f\n", "links used",
		mean(a, &r->s_used), mean(a, &r->a_used));
	print_gain(out, a, r);
	if (!down)
		return;
	print_failed(out, f, down);
	print_reroute(out, rr);
	/* the third column: AR when the switches do not notify lost routes */
	fprintf(out, "%-14s %10s %10s %10s\n", "", "static", "adaptive",
		"no notify");
	fprintf(out, "%-14s %10.2f %10.2f %10.2f   flows on failed links, lost until the SM re-routes\n",
		"lost flows", mean(a, &r->s_lost), mean(a, &r->a_lost),
		mean(a, &r->n_lost));
	fprintf(out, "%-14s %10.2f %10.2f %10.2f   max load before the SM reacts\n",
		"failed max", mean(a, &r->s_fmax), mean(a, &r->a_fmax),
		mean(a, &r->n_fmax));
	fprintf(out, "%-14s %10.2f %10.2f %10s   max load after the SM re-routes (%s), %.2f flows lost\n",
		"re-routed max", mean(a, &r->rr_smax), mean(a, &r->rr_amax),
		"", rr->e->name, mean(a, &r->rr_lost));
}

/* "key": the mean over the runs, "key_worst": the worst run */
static int json_agg(struct json_object *o, const char *key,
		    const struct arsim_args *a, const struct agg *g)
{
	char worst[64];
	int rc = vf_json_add(o, key, vf_json_sig(mean(a, g), 4));

	snprintf(worst, sizeof(worst), "%s_worst", key);
	return rc | vf_json_add(o, worst, vf_json_sig(g->worst, 4));
}

static struct json_object *json_hist(const uint32_t *h, unsigned len,
				     int *rc)
{
	struct json_object *v = json_object_new_array();

	for (unsigned i = 0; i < len; i++)
		*rc |= vf_json_push(v, json_object_new_int64(h[i]));
	return v;
}

static struct json_object *json_failed(const struct vf_fabric *f,
				       const bool *down, int *rc)
{
	struct json_object *v = json_object_new_array();

	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct vf_port *q = &f->ports[p], *r;
		struct json_object *l;

		if (!down[p] || q->remote == VF_NONE || q->remote < p)
			continue;
		r = &f->ports[q->remote];
		l = json_object_new_object();
		*rc |= vf_json_add(l, "guid",
				   vf_json_hex(f->nodes[q->node].guid, 16));
		*rc |= vf_json_add(l, "port", json_object_new_int(q->num));
		*rc |= vf_json_add(l, "desc", vf_json_bytes(vf_node_desc(
					   f, &f->nodes[q->node])));
		*rc |= vf_json_add(l, "peer_guid",
				   vf_json_hex(f->nodes[r->node].guid, 16));
		*rc |= vf_json_add(l, "peer_port", json_object_new_int(r->num));
		*rc |= vf_json_add(l, "peer_desc", vf_json_bytes(vf_node_desc(
					   f, &f->nodes[r->node])));
		*rc |= vf_json_push(v, l);
	}
	return v;
}

/* The failure part: the links, the re-routing and the flows lost. */
static struct json_object *json_failure(const struct arsim_args *a,
					const struct arsim_result *r,
					const struct vf_fabric *f,
					const bool *down,
					const struct reroute *rr, int *rc)
{
	struct json_object *o = json_object_new_object();

	*rc |= vf_json_add(o, "links", json_failed(f, down, rc));
	*rc |= vf_json_add(o, "reroute_engine",
			   json_object_new_string(rr->e->name));
	*rc |= vf_json_add(o, "reroute_engine_from",
			   json_object_new_string(rr->why));
	*rc |= vf_json_add(o, "route_stability",
			   json_object_new_boolean(rr->stability));
	*rc |= json_agg(o, "static_lost", a, &r->s_lost);
	*rc |= json_agg(o, "ar_lost", a, &r->a_lost);
	*rc |= json_agg(o, "static_max", a, &r->s_fmax);
	*rc |= json_agg(o, "ar_max", a, &r->a_fmax);
	*rc |= json_agg(o, "ar_lost_no_notify", a, &r->n_lost);
	*rc |= json_agg(o, "ar_max_no_notify", a, &r->n_fmax);
	*rc |= json_agg(o, "rerouted_static_max", a, &r->rr_smax);
	*rc |= json_agg(o, "rerouted_ar_max", a, &r->rr_amax);
	*rc |= json_agg(o, "rerouted_lost", a, &r->rr_lost);
	return o;
}

/* The whole result as one JSON object (NULL when out of memory). */
static struct json_object *result_json(const struct arsim_args *a,
				       const struct arsim_result *r,
				       const struct vf_fabric *f,
				       const bool *down,
				       const struct reroute *rr)
{
	struct json_object *o = json_object_new_object();
	struct json_object *st = json_object_new_object();
	struct json_object *ad = json_object_new_object();
	struct json_object *gain = json_object_new_object();
	struct json_object *runs = json_object_new_array();
	struct json_object *hist = json_object_new_object();
	int rc = 0;

	rc |= vf_json_add(o, "topo", vf_json_bytes(a->topo));
	rc |= vf_json_add(o, "lfts", vf_json_bytes(a->lfts));
	rc |= vf_json_add(o, "ar", vf_json_bytes(a->ardump ? a->ardump :
						  "computed"));
	rc |= vf_json_add(o, "pattern", json_object_new_string(
				  vf_flow_pattern_name(a->pattern)));
	rc |= vf_json_add(o, "seed", json_object_new_int64(a->seed));
	rc |= vf_json_add(o, "runs", json_object_new_int64(a->runs));
	rc |= vf_json_add(o, "algorithm", json_object_new_string(
				  algorithm_name(a->prm.sel.algorithm)));
	rc |= vf_json_add(o, "threshold",
			  json_object_new_int64(a->prm.sel.threshold));
	rc |= vf_json_add(o, "rounds", json_object_new_int64(a->prm.rounds));
	rc |= vf_json_add(o, "backpressure",
			  json_object_new_boolean(a->prm.backpressure));
	rc |= vf_json_add(o, "notify", json_object_new_boolean(a->prm.notify));
	rc |= vf_json_add(o, "flows", json_object_new_int64(r->flows));
	rc |= vf_json_add(o, "fabric_links", json_object_new_int64(r->links));
	rc |= json_agg(st, "max", a, &r->s_max);
	rc |= json_agg(st, "mean", a, &r->s_mean);
	rc |= json_agg(st, "used", a, &r->s_used);
	rc |= vf_json_add(o, "static", st);
	rc |= json_agg(ad, "max", a, &r->a_max);
	rc |= json_agg(ad, "mean", a, &r->a_mean);
	rc |= json_agg(ad, "used", a, &r->a_used);
	rc |= vf_json_add(o, "adaptive", ad);
	rc |= vf_json_add(o, "ratio", vf_json_sig(
				  ratio(mean(a, &r->s_max), mean(a, &r->a_max)),
				  4));
	rc |= vf_json_add(gain, "backpressure", vf_json_sig(
				  ratio(mean(a, &r->s_max),
					ar_max_model(a, r, true)), 4));
	rc |= vf_json_add(gain, "no_backpressure", vf_json_sig(
				  ratio(mean(a, &r->s_max),
					ar_max_model(a, r, false)), 4));
	rc |= vf_json_add(gain, "ar_max_backpressure",
			  vf_json_sig(ar_max_model(a, r, true), 4));
	rc |= vf_json_add(gain, "ar_max_no_backpressure",
			  vf_json_sig(ar_max_model(a, r, false), 4));
	rc |= vf_json_add(o, "gain", gain);
	for (unsigned i = 0; i < a->runs; i++) {
		struct json_object *x = json_object_new_object();

		rc |= vf_json_add(x, "seed",
				  json_object_new_int64(a->seed + i));
		rc |= vf_json_add(x, "static_max",
				  json_object_new_int64(r->per_run[i].s_max));
		rc |= vf_json_add(x, "ar_max",
				  json_object_new_int64(r->per_run[i].a_max));
		rc |= vf_json_push(runs, x);
	}
	rc |= vf_json_add(o, "per_run", runs);
	rc |= vf_json_add(hist, "static", json_hist(r->hist_s, r->hist_len,
						    &rc));
	rc |= vf_json_add(hist, "adaptive", json_hist(r->hist_a, r->hist_len,
						      &rc));
	rc |= vf_json_add(o, "histogram", hist);
	/* no failure: null (json-c's NULL; the add cannot fail on it) */
	if (down)
		rc |= vf_json_add(o, "failure",
				  json_failure(a, r, f, down, rr, &rc));
	else if (!o || json_object_object_add(o, "failure", NULL))
		rc = -ENOMEM;
	if (rc) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Print the result as JSON: 0, or -ENOMEM / -EIO. */
static int print_json(FILE *out, const struct arsim_args *a,
		      const struct arsim_result *r,
		      const struct vf_fabric *f, const bool *down,
		      const struct reroute *rr)
{
	struct json_object *o = result_json(a, r, f, down, rr);
	int rc = vf_json_print(out, o, JSON_C_TO_STRING_PLAIN);

	json_object_put(o);
	if (rc)
		fprintf(stderr, "vfabric: arsim: cannot print the JSON: %s\n",
			strerror(-rc));
	return rc;
}

/*
 * arplot.py: $VF_ARPLOT, else next to this binary (the build tree), else
 * in pkgdatadir (installed).
 */
static const char *plot_script(char *buf, size_t size)
{
	const char *env = getenv("VF_ARPLOT");
	ssize_t n;
	char *slash;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", buf, size - 16);
	if (n > 0) {
		buf[n] = 0;
		slash = strrchr(buf, '/');
		if (slash) {
			strcpy(slash + 1, "arplot.py");
			if (!access(buf, R_OK))
				return buf;
		}
	}
	return VF_PKGDATADIR "/arplot.py";
}

/*
 * The Python to draw with: $VF_PYTHON, else the system's (where the
 * distribution's python3-matplotlib goes, whatever python3 comes first
 * in PATH), else python3 from PATH.
 */
static const char *python(void)
{
	const char *env = getenv("VF_PYTHON");

	if (env && *env)
		return env;
	return access("/usr/bin/python3", X_OK) ? "python3" : "/usr/bin/python3";
}

/* Write the JSON to a temporary file and run arplot.py on it. */
static int plot(const struct arsim_args *a, const struct arsim_result *r,
		const struct vf_fabric *f, const bool *down,
		const struct reroute *rr)
{
	char tmp[] = "/tmp/vfabric-arsim-XXXXXX", script[4096], dash_o[] = "-o";
	char *argv[6];
	FILE *out;
	pid_t pid;
	int fd = mkstemp(tmp), status = 0, rc;

	if (fd < 0 || !(out = fdopen(fd, "w"))) {
		perror("vfabric: arsim: temporary file");
		if (fd >= 0)
			close(fd);
		return EXIT_PLOT;
	}
	rc = print_json(out, a, r, f, down, rr);
	if (fclose(out) || rc) {
		unlink(tmp);
		return EXIT_PLOT;
	}
	argv[0] = (char *)python();
	argv[1] = (char *)plot_script(script, sizeof(script));
	argv[2] = tmp;
	argv[3] = dash_o;
	argv[4] = (char *)a->plot;
	argv[5] = NULL;
	rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
	if (!rc && waitpid(pid, &status, 0) < 0)
		rc = errno;
	unlink(tmp);
	if (rc || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "vfabric: arsim: %s %s did not draw %s%s%s\n",
			argv[0], argv[1], a->plot, rc ? ": " : "",
			rc ? strerror(rc) : "");
		return EXIT_PLOT;
	}
	return 0;
}

static int report(const struct arsim_args *a, const struct arsim_result *r,
		  const struct vf_fabric *f, const bool *down,
		  const struct reroute *rr)
{
	FILE *out = stdout;
	int rc = 0;

	if (a->json && strcmp(a->json, "-") && !(out = fopen(a->json, "w"))) {
		fprintf(stderr, "vfabric: arsim: %s: %s\n", a->json,
			strerror(errno));
		return EXIT_USAGE;
	}
	if (a->json && print_json(out, a, r, f, down, rr))
		rc = EXIT_USAGE;
	if (out != stdout && fclose(out) && !rc) {
		fprintf(stderr, "vfabric: arsim: %s: %s\n", a->json,
			strerror(errno));
		rc = EXIT_USAGE;
	}
	if (!a->json || out != stdout)
		print_table(stdout, a, r, f, down, rr);
	if (rc)
		return rc;
	return a->plot ? plot(a, r, f, down, rr) : 0;
}

static bool any(const bool *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i])
			return true;
	return false;
}

int vf_cmd_arsim(int argc, char **argv)
{
	struct arsim_args a = { 0 };
	struct arsim_result res = { 0 };
	struct vf_ar_tables ar = { 0 };
	struct vf_lfts t = { 0 };
	struct vf_err err = { "" };
	struct vf_fabric *f = NULL;
	struct reroute rr = { 0 };
	struct log_once logged = { .n = 0 };
	bool *down = NULL, failed;
	int rc = parse(argc, argv, &a);

	if (rc)
		return rc;
	rc = EXIT_USAGE;
	vf_progress_setup(a.progress);
	vf_log_set_sink(log_once_sink, &logged);
	vf_progress("reading %s and %s", a.topo, a.lfts);
	f = vf_cli_routed(a.topo, a.lfts, 0, &t, &err);
	if (!f) {
		vf_progress_end();
		fprintf(stderr, "vfabric: %s\n", err.msg);
		goto out;
	}
	down = calloc(f->num_ports + 1, sizeof(*down));
	res.per_run = calloc(a.runs, sizeof(*res.per_run));
	if (!down || !res.per_run) {
		vf_progress_end();
		fprintf(stderr, "vfabric: out of memory\n");
		goto out;
	}
	/* the arguments first: a bad link is the one thing said */
	for (unsigned i = 0; i < a.num_fail_links; i++)
		if (fail_link(f, a.fail_links[i], down))
			goto out;
	if (a.fail_random &&
	    vf_arflow_fail_random(f, down, a.fail_random, a.seed) <
	    a.fail_random) {
		vf_progress_end();
		fprintf(stderr, "vfabric: arsim: %s has fewer than %u switch-to-switch links\n",
			a.topo, a.fail_random);
		goto out;
	}
	vf_progress("adaptive-routing tables");
	if (ar_tables(&a, f, &t, &ar))
		goto out;
	failed = any(down, f->num_ports);
	if (failed && plan_reroute(&a, f, &t, down, &rr))
		goto out;
	for (unsigned i = 0; i < a.runs; i++) {
		vf_progress("%s traffic: run %u/%u",
			    vf_flow_pattern_name(a.pattern), i + 1, a.runs);
		if (one_run(&a, f, &t, &ar, failed ? down : NULL, &rr, i,
			    &res))
			goto out;
	}
	vf_progress_end();
	rc = report(&a, &res, f, failed ? down : NULL, &rr);
	/* e.g. AR tables left empty for a credit loop: the adaptive
	 * figures are static routing's, not what was asked */
	if (!rc && logged.errors)
		rc = EXIT_FOUND;
out:
	vf_progress_end();
	vf_log_set_sink(NULL, NULL);
	vf_ar_free(&rr.ar);
	vf_lfts_free(&rr.t);
	free(res.hist_s);
	free(res.hist_a);
	free(res.per_run);
	free(down);
	vf_ar_free(&ar);
	vf_lfts_free(&t);
	vf_fabric_destroy(f);
	return rc;
}
