// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric-sa bench: PathRecord queries with K outstanding at a time, each
 * with its own TID, answers matched by TID; per-query latency from the
 * first send to the answer (CLOCK_MONOTONIC), retries included, so a lost
 * answer shows in the tail rather than vanishing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/sa/cli.h"

#define MAX_LID 0xbfff		/* unicast LIDs */
#define PROBE_BATCH 256		/* LIDs probed at a time by --dlids all */

struct query_set {
	uint16_t *dlids;
	size_t n_dlids;
	uint64_t *sids;		/* VF_NO_SID: no ServiceID component */
	size_t n_sids;
	uint8_t method;
	bool pkey;
	uint16_t pkey_val;
};

#define VF_NO_SID (~0ull)

struct slot {
	bool busy;
	uint32_t tid;
	size_t query;
	uint64_t first_us, deadline_us;
	int tries;
};

struct result {
	size_t ok, errors, timeouts, retries, empty;
	uint32_t *lat_us;	/* per answered query */
	size_t n_lat;
	bool *hit;		/* per query: ok with a record (may be NULL) */
	double seconds;
};

static void build_query(const struct vf_sa_port *p,
			const struct query_set *qs, size_t i, uint32_t tid,
			uint8_t *mad)
{
	struct vf_path_rec pr = { 0 };
	struct vf_sa_hdr h = { 0 };
	uint64_t sid = qs->sids[(i / qs->n_dlids) % qs->n_sids];

	h.class_version = VF_SA_CLASS_VERSION;
	h.method = qs->method;
	h.tid = tid;
	h.attr_id = VF_ATTR_PATH_RECORD;
	h.comp_mask = VF_PR_DLID | VF_PR_SLID;
	pr.dlid = qs->dlids[i % qs->n_dlids];
	pr.slid = p->lid;
	if (sid != VF_NO_SID) {
		pr.service_id = sid;
		h.comp_mask |= VF_PR_SID;
	}
	if (qs->pkey) {
		pr.pkey = qs->pkey_val;
		h.comp_mask |= VF_PR_PKEY;
	}
	vf_sa_request(mad, &h);
	vf_pr_encode(mad + VF_SA_HDR_SIZE, &pr);
}

static int send_slot(struct vf_sa_port *p, const struct query_set *qs,
		     struct slot *s)
{
	uint8_t mad[VF_MAD_SIZE];
	uint64_t now = vf_now_us();

	build_query(p, qs, s->query, s->tid, mad);
	if (!s->tries)
		s->first_us = now;
	s->tries++;
	s->deadline_us = now + (uint64_t)p->timeout_ms * 1000;
	return vf_sa_send(p, mad);
}

/* A try of s ended unanswered: send again, or give the query up. */
static int slot_lost(struct vf_sa_port *p, const struct query_set *qs,
		     struct slot *s, struct result *res, size_t *done)
{
	if (s->tries <= p->retries) {
		res->retries++;
		return send_slot(p, qs, s);
	}
	res->timeouts++;
	res->errors++;
	s->busy = false;
	++*done;
	return 0;
}

static void slot_answered(struct slot *s, const struct vf_sa_reply *r,
			  struct result *res, size_t *done)
{
	struct vf_sa_hdr h;
	bool truncated;
	unsigned n;

	vf_sa_hdr_decode(r->mad, &h);
	n = vf_sa_record_count(&h, r->len, &truncated);
	res->lat_us[res->n_lat++] = (uint32_t)(vf_now_us() - s->first_us);
	if (h.status) {
		res->errors++;
	} else {
		res->ok++;
		if (!n)
			res->empty++;
		else if (res->hit)
			res->hit[s->query] = true;
	}
	s->busy = false;
	++*done;
}

static struct slot *find_slot(struct slot *slots, unsigned k, uint32_t tid)
{
	unsigned i;

	for (i = 0; i < k; i++)
		if (slots[i].busy && slots[i].tid == tid)
			return &slots[i];
	return NULL;
}

/* Run count queries of qs, window at a time.  0, or -errno. */
static int run(struct vf_sa_port *p, const struct query_set *qs,
	       size_t count, unsigned window, struct result *res)
{
	struct slot *slots = calloc(window, sizeof(*slots)), *s;
	size_t next = 0, done = 0;
	struct vf_sa_reply r;
	uint64_t t0, wait, now;
	unsigned i;
	int rc = 0;

	res->lat_us = calloc(count ? count : 1, sizeof(*res->lat_us));
	if (!slots || !res->lat_us) {
		free(slots);
		return -ENOMEM;
	}
	t0 = vf_now_us();
	while (done < count && !rc) {
		for (i = 0; i < window && next < count && !rc; i++) {
			if (slots[i].busy)
				continue;
			slots[i] = (struct slot){ .busy = true, .query = next++,
						  .tid = vf_sa_new_tid(p) };
			rc = send_slot(p, qs, &slots[i]);
		}
		if (rc)
			break;
		now = vf_now_us();
		wait = ~0ull;
		for (i = 0; i < window; i++) {
			uint64_t d;

			if (!slots[i].busy)
				continue;
			d = slots[i].deadline_us > now ?
				slots[i].deadline_us - now : 0;
			if (d < wait)
				wait = d;
		}
		rc = vf_sa_recv(p, (int)(wait / 1000) + 1, &r);
		if (rc == -ETIMEDOUT) {
			rc = 0;
			now = vf_now_us();
			for (i = 0; i < window && !rc; i++)
				if (slots[i].busy && slots[i].deadline_us <= now)
					rc = slot_lost(p, qs, &slots[i], res,
						       &done);
			continue;
		}
		if (rc < 0)
			break;
		s = find_slot(slots, window, r.tid);
		if (!s)
			continue;		/* late answer to a retry */
		if (r.umad_status)
			rc = slot_lost(p, qs, s, res, &done);
		else
			slot_answered(s, &r, res, &done);
	}
	res->seconds = (double)(vf_now_us() - t0) / 1e6;
	free(slots);
	return rc;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted values. */
static uint32_t percentile(const uint32_t *v, size_t n, unsigned pct)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (n * pct + 99) / 100;
	return v[rank ? rank - 1 : 0];
}

/* "2,5,9-12" (or whitespace-separated, from a file) into LIDs. */
static int parse_lids(const char *text, uint16_t **out, size_t *n)
{
	const char *s = text;
	unsigned long a, b;
	size_t cap = 0;
	char *end;

	*n = 0;
	*out = NULL;
	while (*s) {
		if (isspace((unsigned char)*s) || *s == ',') {
			s++;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			return -1;
		a = b = strtoul(s, &end, 0);
		if (*end == '-')
			b = strtoul(end + 1, &end, 0);
		if (!a || b < a || b > MAX_LID ||
		    (*end && *end != ',' && !isspace((unsigned char)*end)))
			return -1;
		for (; a <= b; a++) {
			if (*n == cap) {
				uint16_t *m;

				cap = cap ? 2 * cap : 64;
				m = realloc(*out, cap * sizeof(**out));
				if (!m)
					return -1;
				*out = m;
			}
			(*out)[(*n)++] = (uint16_t)a;
		}
		s = end;
	}
	return *n ? 0 : -1;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			char *m = realloc(buf, cap + 65536);

			if (!m) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = m;
			cap += 65536;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
	} while (got);
	fclose(f);
	buf[len] = 0;
	return buf;
}

/*
 * --dlids all: the LIDs the SA has paths to from this port.  A GetTable
 * of all our paths would say, but under umad2sim only its first MAD
 * arrives, so probe instead: a GetTable per LID, PROBE_BATCH at a time,
 * until a whole batch past the last hit has none.
 */
static int probe_lids(struct vf_sa_port *p, const struct sa_opts *o,
		      uint16_t **out, size_t *n)
{
	uint64_t none = VF_NO_SID;
	uint16_t batch[PROBE_BATCH];
	bool hit[PROBE_BATCH];
	struct query_set qs = { .dlids = batch, .n_dlids = PROBE_BATCH,
				.sids = &none, .n_sids = 1,
				.method = VF_METHOD_GETTABLE };
	unsigned window = o->window > 16 ? o->window : 16;
	unsigned base, i, found;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	for (base = 1; base <= MAX_LID; base += PROBE_BATCH) {
		struct result res = { .hit = hit };

		memset(hit, 0, sizeof(hit));
		for (i = 0; i < PROBE_BATCH; i++)
			batch[i] = (uint16_t)(base + i <= MAX_LID ? base + i :
					      MAX_LID);
		rc = run(p, &qs, PROBE_BATCH, window, &res);
		free(res.lat_us);
		if (rc < 0)
			return rc;
		for (found = 0, i = 0; i < PROBE_BATCH; i++) {
			/* our own LIDs are no destination */
			if (!hit[i] || (i && batch[i] == batch[i - 1]) ||
			    (batch[i] >= p->lid &&
			     batch[i] < p->lid + (1u << p->lmc)))
				continue;
			if (*n == cap) {
				uint16_t *m;

				cap = cap ? 2 * cap : 256;
				m = realloc(*out, cap * sizeof(**out));
				if (!m)
					return -ENOMEM;
				*out = m;
			}
			(*out)[(*n)++] = batch[i];
			found++;
		}
		if (!found && base > 1)
			break;
	}
	return *n ? 0 : -ENOENT;
}

static int parse_sids(const char *text, uint64_t **out, size_t *n)
{
	char *copy = strdup(text ? text : "none"), *tok, *save = NULL, *end;

	*n = 0;
	*out = calloc(strlen(copy) / 2 + 2, sizeof(**out));
	if (!*out)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "none")) {
			(*out)[(*n)++] = VF_NO_SID;
			continue;
		}
		(*out)[*n] = strtoull(tok, &end, 0);
		if (*end || !isdigit((unsigned char)*tok) ||
		    (*out)[*n] == VF_NO_SID) {
			free(copy);
			return -1;
		}
		++*n;
	}
	free(copy);
	return *n ? 0 : -1;
}

static int get_dlids(struct vf_sa_port *p, const struct sa_opts *o,
		     uint16_t **dlids, size_t *n)
{
	const char *spec = o->dlids ? o->dlids : "all";
	char *text;
	int rc;

	if (!strcmp(spec, "all")) {
		rc = probe_lids(p, o, dlids, n);
		if (rc < 0)
			fprintf(stderr, "vfabric-sa: %s\n", rc == -ENOENT ?
				"the SA knows no path from this port" :
				"transport error while looking for LIDs");
		return rc < 0 ? EXIT_TRANSPORT : 0;
	}
	if (isdigit((unsigned char)*spec) && !strpbrk(spec, "/.") &&
	    parse_lids(spec, dlids, n) == 0)
		return 0;
	text = read_file(spec);
	if (!text)
		return sa_bad_usage("--dlids: '%s' is neither a LID list nor a readable file",
				    spec);
	rc = parse_lids(text, dlids, n);
	free(text);
	return rc ? sa_bad_usage("--dlids: %s holds no LID list", spec) : 0;
}

int cmd_bench(struct vf_sa_port *p, const struct sa_opts *o)
{
	struct query_set qs = { .method = given(o, O_GET) ? VF_METHOD_GET :
				VF_METHOD_GETTABLE,
				.pkey = given(o, O_PKEY), .pkey_val = o->pkey };
	struct result res = { 0 };
	int rc;

	if (parse_sids(o->sids, &qs.sids, &qs.n_sids) < 0) {
		free(qs.sids);
		return sa_bad_usage("--sid takes ServiceIDs and 'none' separated by commas, not '%s'",
				    o->sids);
	}
	rc = get_dlids(p, o, &qs.dlids, &qs.n_dlids);
	if (rc)
		goto free_sids;
	rc = run(p, &qs, o->count, o->window, &res);
	if (rc < 0) {
		fprintf(stderr, "vfabric-sa: transport error: %s\n",
			strerror(-rc));
		rc = EXIT_TRANSPORT;
		goto free_res;
	}
	qsort(res.lat_us, res.n_lat, sizeof(*res.lat_us), cmp_u32);
	printf("queries=%lu ok=%zu errors=%zu seconds=%.3f qps=%.0f p50_us=%u p99_us=%u max_us=%u timeouts=%zu retries=%zu empty=%zu dlids=%zu\n",
	       o->count, res.ok, res.errors, res.seconds,
	       res.seconds > 0 ? (double)o->count / res.seconds : 0.0,
	       percentile(res.lat_us, res.n_lat, 50),
	       percentile(res.lat_us, res.n_lat, 99),
	       res.n_lat ? res.lat_us[res.n_lat - 1] : 0, res.timeouts,
	       res.retries, res.empty, qs.n_dlids);
	/* nothing answered at all: that is the transport's failure */
	rc = res.n_lat ? EXIT_ANSWERED : EXIT_TRANSPORT;
free_res:
	free(res.lat_us);
	free(qs.dlids);
free_sids:
	free(qs.sids);
	return rc;
}
