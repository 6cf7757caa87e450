// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* The flow-level AR simulator (routing/arflow.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arflow.h"
#include "engine.h"

static const char *const pattern_names[] = {
	[VF_FLOW_PERM] = "perm",
	[VF_FLOW_ALL2ALL] = "all2all",
	[VF_FLOW_HOTSPOT] = "hotspot",
	[VF_FLOW_SHIFT] = "shift",
};

int vf_flow_pattern_parse(const char *name)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(name, pattern_names[i]))
			return i;
	return -1;
}

const char *vf_flow_pattern_name(enum vf_flow_pattern p)
{
	return (unsigned)p < 4 ? pattern_names[p] : "?";
}

/* A non-zero xorshift state from any seed (small seeds differ at once). */
static uint32_t rng_from(uint32_t seed)
{
	uint32_t x = (seed + 1) * 2654435761u;

	return x ? x : 0x9e3779b9u;
}

static bool is_switch_port(const struct vf_fabric *f, uint32_t p)
{
	return vf_is_switch(&f->nodes[f->ports[p].node]);
}

int vf_flow_endpoints(const struct vf_fabric *f, uint32_t **ports)
{
	uint32_t n = 0;

	*ports = malloc(sizeof(**ports) * (f->num_ports + 1));
	if (!*ports)
		return -ENOMEM;
	for (uint32_t p = 0; p < f->num_ports; p++) {
		const struct vf_port *q = &f->ports[p];

		if (!is_switch_port(f, p) && q->num && q->base_lid &&
		    q->remote != VF_NONE && is_switch_port(f, q->remote))
			(*ports)[n++] = p;
	}
	return (int)n;
}

static void shuffle(uint32_t *v, uint32_t n, uint32_t *rng)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = vf_arsel_random(rng) % i, x = v[i - 1];

		v[i - 1] = v[j];
		v[j] = x;
	}
}

/* A random permutation of 0..n-1 without fixed points (n >= 2). */
static void derangement(uint32_t *v, uint32_t n, uint32_t *rng)
{
	for (uint32_t i = 0; i < n; i++)
		v[i] = i;
	shuffle(v, n, rng);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = (i + 1) % n, x;

		if (v[i] != i)
			continue;
		x = v[i];
		v[i] = v[j];
		v[j] = x;
	}
}

static void add_flow(struct vf_flows *out, const struct vf_fabric *f,
		     uint32_t src, uint32_t dst)
{
	out->v[out->n++] = (struct vf_flow){ src, f->ports[dst].base_lid };
}

int vf_flows_make(const struct vf_fabric *f, enum vf_flow_pattern p,
		  uint32_t seed, unsigned shift, struct vf_flows *out)
{
	uint32_t *ep, *perm = NULL, rng = rng_from(seed), hot, k;
	int n = vf_flow_endpoints(f, &ep);
	size_t count;

	out->v = NULL;
	out->n = 0;
	if (n < 0)
		return n;
	if (n < 2 || (p == VF_FLOW_SHIFT && shift && shift % n == 0)) {
		free(ep);
		return -EINVAL;
	}
	count = p == VF_FLOW_ALL2ALL ? (size_t)n * (n - 1) : (size_t)n;
	out->v = malloc(sizeof(*out->v) * count);
	if (p == VF_FLOW_PERM)
		perm = malloc(sizeof(*perm) * n);
	if (!out->v || (p == VF_FLOW_PERM && !perm)) {
		free(ep);
		free(perm);
		vf_flows_free(out);
		return -ENOMEM;
	}
	switch (p) {
	case VF_FLOW_PERM:
		derangement(perm, n, &rng);
		for (int i = 0; i < n; i++)
			add_flow(out, f, ep[i], ep[perm[i]]);
		break;
	case VF_FLOW_ALL2ALL:
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (i != j)
					add_flow(out, f, ep[i], ep[j]);
		break;
	case VF_FLOW_HOTSPOT:
		hot = vf_arsel_random(&rng) % n;
		for (int i = 0; i < n; i++)
			if ((uint32_t)i != hot)
				add_flow(out, f, ep[i], ep[hot]);
		break;
	case VF_FLOW_SHIFT:
		k = shift ? shift % n : (uint32_t)n / 2;
		for (int i = 0; i < n; i++)
			add_flow(out, f, ep[i], ep[(i + k) % n]);
		break;
	}
	free(perm);
	free(ep);
	return 0;
}

void vf_flows_free(struct vf_flows *fl)
{
	free(fl->v);
	fl->v = NULL;
	fl->n = 0;
}

void vf_arflow_params_default(struct vf_arflow_params *p)
{
	*p = (struct vf_arflow_params){
		.sel = { .algorithm = VF_AR_GREEDY_RANDOM, .threshold = 3,
			 .frequency = 0 },
		.rounds = 4,
		.seed = 1,
		.backpressure = true,
		.notify = true,
	};
}

void vf_arflow_fail(const struct vf_fabric *f, bool *down, uint32_t p)
{
	down[p] = true;
	if (f->ports[p].remote != VF_NONE)
		down[f->ports[p].remote] = true;
}

/* A link between two switches, counted once (from its lower slot). */
static bool switch_link(const struct vf_fabric *f, uint32_t p)
{
	uint32_t r = f->ports[p].remote;

	return r != VF_NONE && p < r && is_switch_port(f, p) &&
	       is_switch_port(f, r);
}

unsigned vf_arflow_fail_random(const struct vf_fabric *f, bool *down,
			       unsigned n, uint32_t seed)
{
	uint32_t *cand = malloc(sizeof(*cand) * (f->num_ports + 1));
	uint32_t rng = rng_from(seed), count = 0;
	unsigned done = 0;

	if (!cand)
		return 0;
	for (uint32_t p = 0; p < f->num_ports; p++)
		if (switch_link(f, p) && !down[p])
			cand[count++] = p;
	for (; done < n && done < count; done++) {
		uint32_t j = done + vf_arsel_random(&rng) % (count - done);
		uint32_t x = cand[j];

		cand[j] = cand[done];
		cand[done] = x;
		vf_arflow_fail(f, down, x);
	}
	free(cand);
	return done;
}

enum fate { DELIVERED, LOST, UNROUTED };

/* One placement of a set of flows: loads, each flow's path and fate. */
struct sim {
	const struct vf_fabric *f;
	const struct vf_lfts *t;
	const struct vf_ar_tables *ar;	/* NULL: static */
	const struct vf_flows *fl;
	const bool *down;
	bool *lost;			/* notify: vf_arflow_lost_routes() */
	const struct vf_arsel_params *sel;
	bool backpressure;		/* see downstream() */
	uint32_t *loads;
	unsigned max;			/* busiest fabric link now */
	uint32_t rng;
	struct vf_arsel_port ports[VF_MAX_PORTS + 1];

	uint32_t *pool;			/* the hops of every path */
	size_t pool_len, pool_cap;
	size_t *start;			/* per flow: its path in pool */
	uint32_t *len;
	uint8_t *fate;
};

/* Port slot p cannot carry a flow: unlinked, or failed. */
static bool is_down(const struct sim *s, uint32_t p)
{
	return s->f->ports[p].remote == VF_NONE || (s->down && s->down[p]);
}

/* A fabric link: between two switches and up. */
static bool is_fabric(const struct sim *s, uint32_t p)
{
	return !is_down(s, p) && is_switch_port(s->f, p) &&
	       is_switch_port(s->f, s->f->ports[p].remote);
}

static int pool_push(struct sim *s, uint32_t p)
{
	if (s->pool_len == s->pool_cap) {
		size_t cap = s->pool_cap ? 2 * s->pool_cap : 1024;
		uint32_t *n = realloc(s->pool, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->pool = n;
		s->pool_cap = cap;
	}
	s->pool[s->pool_len++] = p;
	return 0;
}

/* How loaded a port of load flows looks: relative to the busiest link. */
static unsigned load_pct(const struct sim *s, unsigned load)
{
	uint64_t pct;

	if (!s->max)
		return 0;
	pct = 100ull * load / s->max;
	return pct > 100 ? 100 : (unsigned)pct;
}

/*
 * The highest load on the links a flow for lid takes after port p, by the
 * LFTs: with credit-based flow control a congested link further on fills
 * the buffers behind it, so the switch sees it at p (backpressure).
 */
static unsigned downstream(const struct sim *s, uint32_t p, unsigned lid)
{
	const struct vf_fabric *f = s->f;
	unsigned most = 0;

	for (uint32_t hops = 0; hops <= f->num_switches; hops++) {
		const struct vf_node *n = &f->nodes[f->ports[p].node];
		unsigned e;

		if (!vf_is_switch(n))
			break;
		e = vf_lft_row(s->t, n->sw)[lid];
		if (!e || e > n->num_ports)
			break;
		p = n->first_port + e;
		if (!is_fabric(s, p))
			break;
		if (s->loads[p] > most)
			most = s->loads[p];
		p = f->ports[p].remote;
	}
	return most;
}

/* The port (number) switch node n sends a flow for lid out of. */
static unsigned egress(struct sim *s, const struct vf_node *n, unsigned lid,
		       unsigned static_port)
{
	const struct vf_ar_mask *g = vf_arflow_group(s->ar, n->sw, lid);

	if (!g)
		return static_port;
	for (unsigned q = 1; q <= n->num_ports; q++) {
		uint32_t p = n->first_port + q;
		unsigned load = s->loads[p];

		s->ports[q].down = vf_arflow_port_lost(s->f, s->t, s->down,
						       s->lost, p, lid);
		if (s->backpressure && !s->ports[q].down &&
		    vf_ar_mask_has(g, q)) {
			unsigned more = downstream(s, s->f->ports[p].remote, lid);

			load = more > load ? more : load;
		}
		s->ports[q].load = load_pct(s, load);
	}
	return vf_arsel_choose(s->sel, g, static_port, s->ports, n->num_ports,
			       NULL, 0, &s->rng);
}

static bool delivers(const struct vf_port *q, unsigned lid)
{
	return q->base_lid && lid >= q->base_lid &&
	       lid < q->base_lid + (1u << q->lmc);
}

/* Walk flow i from its source, adding its path to the loads. */
static int place(struct sim *s, uint32_t i)
{
	const struct vf_fabric *f = s->f;
	const struct vf_flow *fw = &s->fl->v[i];
	uint32_t p = fw->src, hops = 0;

	s->start[i] = s->pool_len;
	s->len[i] = 0;
	for (;;) {
		const struct vf_node *n;
		unsigned e;

		if (is_down(s, p)) {
			s->fate[i] = f->ports[p].remote == VF_NONE ? UNROUTED :
								      LOST;
			return 0;
		}
		if (pool_push(s, p))
			return -ENOMEM;
		s->len[i]++;
		s->loads[p]++;
		if (is_fabric(s, p) && s->loads[p] > s->max)
			s->max = s->loads[p];
		p = f->ports[p].remote;
		n = &f->nodes[f->ports[p].node];
		if (!vf_is_switch(n)) {
			s->fate[i] = delivers(&f->ports[p], fw->dlid) ?
				     DELIVERED : UNROUTED;
			return 0;
		}
		e = fw->dlid <= s->t->max_lid ?
		    vf_lft_row(s->t, n->sw)[fw->dlid] : VF_NO_PORT;
		if (!e || e > n->num_ports || ++hops > f->num_switches) {
			s->fate[i] = UNROUTED;
			return 0;
		}
		p = n->first_port + egress(s, n, fw->dlid, e);
	}
}

/* Take flow i's path out of the loads (and the maximum down with it). */
static void unplace(struct sim *s, uint32_t i)
{
	bool was_max = false;

	for (uint32_t k = 0; k < s->len[i]; k++) {
		uint32_t p = s->pool[s->start[i] + k];

		was_max |= is_fabric(s, p) && s->loads[p] == s->max;
		s->loads[p]--;
	}
	s->len[i] = 0;
	if (!was_max)
		return;
	s->max = 0;
	for (uint32_t p = 0; p < s->f->num_ports; p++)
		if (is_fabric(s, p) && s->loads[p] > s->max)
			s->max = s->loads[p];
}

static bool on_busiest(const struct sim *s, uint32_t i)
{
	for (uint32_t k = 0; k < s->len[i]; k++) {
		uint32_t p = s->pool[s->start[i] + k];

		if (is_fabric(s, p) && s->loads[p] == s->max)
			return true;
	}
	return false;
}

static void stats(const struct sim *s, struct vf_arflow_stats *st)
{
	uint64_t total = 0;

	memset(st, 0, sizeof(*st));
	for (uint32_t p = 0; p < s->f->num_ports; p++) {
		if (!is_fabric(s, p))
			continue;
		st->links++;
		st->used += s->loads[p] > 0;
		total += s->loads[p];
		if (s->loads[p] > st->max)
			st->max = s->loads[p];
	}
	st->mean = st->links ? (double)total / st->links : 0;
	for (uint32_t i = 0; i < s->fl->n; i++) {
		st->lost += s->fate[i] == LOST;
		st->unrouted += s->fate[i] == UNROUTED;
	}
}

static void sim_free(struct sim *s, uint32_t *own_loads)
{
	free(own_loads);
	free(s->pool);
	free(s->start);
	free(s->len);
	free(s->fate);
	free(s->lost);
}

/* Both placements: static when ar is NULL, else the AR model. */
static int run(const struct vf_fabric *f, const struct vf_lfts *t,
	       const struct vf_ar_tables *ar, const struct vf_flows *fl,
	       const bool *down, const struct vf_arflow_params *prm,
	       uint32_t *loads, struct vf_arflow_stats *st)
{
	struct vf_arflow_params def;
	struct sim s = { .f = f, .t = t, .ar = ar, .fl = fl, .down = down };
	uint32_t *own = NULL, *order = NULL, n = fl->n;
	int rc = -ENOMEM;

	if (!prm) {
		vf_arflow_params_default(&def);
		prm = &def;
	}
	s.sel = &prm->sel;
	s.backpressure = prm->backpressure;
	s.rng = rng_from(prm->seed);
	if (ar && down && prm->notify &&
	    vf_arflow_lost_routes(f, t, ar, down, &s.lost))
		return -ENOMEM;
	if (!loads)
		loads = own = malloc(sizeof(*loads) * (f->num_ports + 1));
	s.loads = loads;
	s.start = malloc(sizeof(*s.start) * (n + 1));
	s.len = malloc(sizeof(*s.len) * (n + 1));
	s.fate = malloc(n + 1);
	order = malloc(sizeof(*order) * (n + 1));
	if (!loads || !s.start || !s.len || !s.fate || !order)
		goto out;
	memset(loads, 0, sizeof(*loads) * f->num_ports);
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	if (ar)
		shuffle(order, n, &s.rng);
	for (uint32_t k = 0; k < n; k++)
		if (place(&s, order[k]))
			goto out;
	for (unsigned r = 0; ar && r < prm->rounds && s.max; r++) {
		uint32_t moved = 0;

		for (uint32_t k = 0; k < n; k++) {
			if (!on_busiest(&s, order[k]))
				continue;
			unplace(&s, order[k]);
			if (place(&s, order[k]))
				goto out;
			moved++;
		}
		if (!moved)
			break;
	}
	stats(&s, st);
	rc = 0;
out:
	free(order);
	sim_free(&s, own);
	return rc;
}

int vf_arflow_static(const struct vf_fabric *f, const struct vf_lfts *t,
		     const struct vf_flows *fl, const bool *down,
		     uint32_t *loads, struct vf_arflow_stats *st)
{
	return run(f, t, NULL, fl, down, NULL, loads, st);
}

int vf_arflow_adaptive(const struct vf_fabric *f, const struct vf_lfts *t,
		       const struct vf_ar_tables *ar,
		       const struct vf_flows *fl, const bool *down,
		       const struct vf_arflow_params *p, uint32_t *loads,
		       struct vf_arflow_stats *st)
{
	return run(f, t, ar, fl, down, p, loads, st);
}

/* Mark the down links unhealthy, saving their flags, or restore them. */
static void set_health(struct vf_fabric *f, const bool *down, bool *saved,
		       bool restore)
{
	for (uint32_t p = 0; p < f->num_ports; p++) {
		if (!down[p])
			continue;
		if (restore) {
			f->ports[p].healthy = saved[p];
		} else {
			saved[p] = f->ports[p].healthy;
			f->ports[p].healthy = false;
		}
	}
}

int vf_arflow_reroute(struct vf_fabric *f, const bool *down,
		      const struct vf_engine *e,
		      const struct vf_previous *prev, struct vf_lfts *t,
		      struct vf_ar_tables *ar)
{
	bool *saved = calloc(f->num_ports + 1, sizeof(*saved));
	struct vf_route_opts opts;
	struct vf_ar_config cfg;
	int rc;

	memset(t, 0, sizeof(*t));
	memset(ar, 0, sizeof(*ar));
	if (!saved)
		return -ENOMEM;
	set_health(f, down, saved, false);
	vf_route_opts_default(&opts);
	opts.previous = prev;
	vf_ar_config_default(&cfg);
	cfg.enable = cfg.fine_grained = true;
	rc = vf_lfts_init(t, f->num_switches, f->max_lid);
	if (!rc)
		rc = e->route(f, &opts, t);
	if (!rc)
		rc = vf_ar_compute(f, t, &cfg, NULL, ar);
	set_health(f, down, saved, true);
	if (rc) {
		vf_ar_free(ar);
		vf_lfts_free(t);
	}
	free(saved);
	return rc;
}
