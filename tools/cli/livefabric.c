// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Live fabric input for the vfabric CLI (see livefabric.h).  The topology
 * comes from ibnd_discover_fabric() and goes through the fabric model's
 * builder, as the net-file parser's does; the LFTs are read block by block
 * with LinearForwardingTable SMPs up to each switch's LinearFDBTop (from
 * SwitchInfo), so the block holding the top LID is always read.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include "tools/cli/livefabric.h"
#include "routing/lftdump.h"
#include "routing/netfile.h"

/* infiniband-diags 44's default map and their config (CA=, Port=) */
#define DEFAULT_NODE_NAME_MAP "/etc/rdma/ib-node-name-map"
#define IBDIAG_CONF "/etc/infiniband-diags/ibdiag.conf"

static char *live_ca;		/* --Ca, else ibdiag.conf's CA= */
static int live_port;		/* --Port, 0: the first active */
static const char *name_map_path;	/* --node-name-map */

/*
 * The node-name-map's names, by node (NULL: none), of the last fabric
 * loaded.  Kept beside the model, never in it: DeviceGroups match the
 * real NodeDescs, as the plugin does, so a map changes no membership.
 */
static const struct vf_fabric *mapped_fabric;
static char **mapped;
static uint32_t num_mapped;

static void free_mapped(void)
{
	for (uint32_t i = 0; mapped && i < num_mapped; i++)
		free(mapped[i]);
	free(mapped);
	mapped = NULL;
	num_mapped = 0;
}

/* The diags' defaults for the local port: CA= and Port= lines. */
static void read_ibdiag_conf(void)
{
	static char ca[256];
	char line[256];
	FILE *in = fopen(IBDIAG_CONF, "r");

	if (!in)
		return;
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!strncmp(line, "CA=", 3) && line[3]) {
			snprintf(ca, sizeof(ca), "%s", line + 3);
			live_ca = ca;
		} else if (!strncmp(line, "Port=", 5)) {
			live_port = atoi(line + 5);
		}
	}
	fclose(in);
}

int vf_cli_global_opts(int argc, char **argv)
{
	int out = 1;

	read_ibdiag_conf();

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = NULL;

		if (!strcmp(a, "--")) {
			while (i < argc)
				argv[out++] = argv[i++];
			break;
		}
		if (!strcmp(a, "--Ca") || !strcmp(a, "--Port") ||
		    !strcmp(a, "--node-name-map")) {
			if (i + 1 >= argc)
				return argc;	/* let the command complain */
			v = argv[++i];
		} else if (!strncmp(a, "--Ca=", 5) ||
			   !strncmp(a, "--Port=", 7) ||
			   !strncmp(a, "--node-name-map=", 16)) {
			v = strchr(a, '=') + 1;
		} else {
			argv[out++] = argv[i];
			continue;
		}
		if (!strncmp(a, "--Ca", 4))
			live_ca = (char *)v;
		else if (!strncmp(a, "--Port", 6))
			live_port = atoi(v);
		else
			name_map_path = v;
	}
	argv[out] = NULL;
	return out;
}

/* ---- node-name-map: lines 'GUID "name"' (or GUID name); '#' comments */

struct map_entry {
	uint64_t guid;
	char *name;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct map_entry *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static void free_map(struct map_entry *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

/* Parse one line into *e; 1 when it holds an entry, 0 otherwise. */
static int map_line(char *line, struct map_entry *e)
{
	char *s = line, *end, *name;

	s += strspn(s, " \t");
	if (*s == '#' || *s == '\n' || !*s)
		return 0;
	e->guid = strtoull(s, &end, 0);
	if (end == s || !e->guid)
		return -1;
	s = end + strspn(end, " \t");
	if (*s == '"') {
		name = ++s;
		end = strchr(s, '"');
		if (!end)
			return -1;
	} else {
		name = s;
		end = s + strcspn(s, "#\n");
		while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
	}
	if (end == name)
		return -1;
	*end = '\0';
	e->name = strdup(name);
	return e->name ? 1 : -ENOMEM;
}

static int load_map(const char *path, struct map_entry **out, size_t *num,
		    struct vf_err *err)
{
	struct map_entry *m = NULL, e;
	size_t n = 0, cap = 0;
	unsigned lineno = 0;
	char line[1024];
	FILE *in = fopen(path, "r");

	if (!in)
		return vf_err_set(err, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		int r = map_line(line, &e);

		lineno++;
		if (r == -ENOMEM) {
			fclose(in);
			free_map(m, n);
			return vf_err_set(err, "out of memory");
		}
		/* the diags skip what they cannot read; say so, go on */
		if (r < 0)
			fprintf(stderr, "vfabric: warning: %s:%u: expected GUID \"name\", line ignored\n",
				path, lineno);
		if (r <= 0)
			continue;
		if (n == cap) {
			void *p = realloc(m, (cap = cap ? 2 * cap : 64) *
					  sizeof(*m));
			if (!p) {
				free(e.name);
				fclose(in);
				free_map(m, n);
				return vf_err_set(err, "out of memory");
			}
			m = p;
		}
		m[n++] = e;
	}
	fclose(in);
	qsort(m, n, sizeof(*m), cmp_entry);
	*out = m;
	*num = n;
	return 0;
}

/*
 * The node-name-map's names of f's nodes, for vf_cli_find_node() (a NODE
 * may be named by them).  The default map is used only when it exists,
 * as the diags do.
 */
static int apply_map(struct vf_fabric *f, struct vf_err *err)
{
	static bool registered;
	const char *path = name_map_path;
	struct map_entry *m = NULL;
	struct stat st;
	size_t n = 0;
	int rc;

	if (!registered)
		registered = !atexit(free_mapped);
	free_mapped();
	mapped = calloc(f->num_nodes + 1, sizeof(*mapped));
	if (!mapped)
		return vf_err_set(err, "out of memory");
	num_mapped = f->num_nodes;
	mapped_fabric = f;
	if (!path && !stat(DEFAULT_NODE_NAME_MAP, &st))
		path = DEFAULT_NODE_NAME_MAP;
	if (!path || !*path)
		return 0;
	rc = load_map(path, &m, &n, err);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < f->num_nodes && !rc; i++) {
		struct map_entry key = { .guid = f->nodes[i].guid }, *hit;

		hit = bsearch(&key, m, n, sizeof(*m), cmp_entry);
		if (hit && !(mapped[i] = strdup(hit->name)))
			rc = vf_err_set(err, "out of memory");
	}
	free_map(m, n);
	return rc;
}

/* ---- topology from libibnetdisc */

struct guid_index {
	uint64_t guid;
	uint32_t node;
};

static int cmp_gi(const void *a, const void *b)
{
	const struct guid_index *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static uint32_t node_of(const struct guid_index *gi, size_t n, uint64_t g)
{
	struct guid_index key = { .guid = g }, *hit;

	hit = bsearch(&key, gi, n, sizeof(*gi), cmp_gi);
	return hit ? hit->node : VF_NONE;
}

static unsigned width_lanes(unsigned active)
{
	switch (active) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

static enum vf_speed port_speed(ibnd_port_t *ip)
{
	unsigned ext = mad_get_field(ip->info, 0,
				     IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
	unsigned sp = mad_get_field(ip->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);

	switch (ext) {
	case 1: return VF_SPEED_FDR;
	case 2: return VF_SPEED_EDR;
	case 4: return VF_SPEED_HDR;
	case 8: return VF_SPEED_NDR;
	}
	if (mad_get_field(ip->ext_info, 0,
			  IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F) & 1)
		return VF_SPEED_FDR10;
	switch (sp) {
	case 1: return VF_SPEED_SDR;
	case 2: return VF_SPEED_DDR;
	case 4: return VF_SPEED_QDR;
	default: return VF_SPEED_UNKNOWN;
	}
}

struct build {
	struct vf_fabric *f;
	struct guid_index *gi;
	size_t n, cap;
	int rc;
};

static void add_one(ibnd_node_t *node, void *user)
{
	static const char prefix[] = { [IB_NODE_CA] = 'H',
				       [IB_NODE_SWITCH] = 'S',
				       [IB_NODE_ROUTER] = 'R' };
	struct build *b = user;
	uint64_t sysimg = mad_get_field64(node->info, 0,
					  IB_NODE_SYSTEM_GUID_F);
	char id[24];
	uint32_t n;

	if (b->rc)
		return;
	if (node->type < IB_NODE_CA || node->type > IB_NODE_ROUTER ||
	    node->numports < 1 || node->numports > VF_MAX_PORTS) {
		b->rc = -EINVAL;
		return;
	}
	snprintf(id, sizeof(id), "%c-%016" PRIx64, prefix[node->type],
		 node->guid);
	n = vf_fabric_add_node(b->f, node->type, node->guid, sysimg,
			       node->numports, id, node->nodedesc);
	if (n == VF_NONE) {
		b->rc = -ENOMEM;
		return;
	}
	b->f->nodes[n].partition_cap = mad_get_field(node->info, 0,
						     IB_NODE_PARTITION_CAP_F);
	if (node->type == IB_NODE_SWITCH) {
		struct vf_port *p0 = vf_node_port(b->f, &b->f->nodes[n], 0);

		b->f->nodes[n].enforce_cap =
			mad_get_field(node->switchinfo, 0,
				      IB_SW_PARTITION_ENFORCE_CAP_F);
		p0->base_lid = node->smalid;
		p0->lmc = 0;
	}
	for (int i = 1; i <= node->numports; i++) {
		ibnd_port_t *ip = node->ports[i];
		struct vf_port *p = vf_node_port(b->f, &b->f->nodes[n], i);

		if (!ip)
			continue;
		if (node->type != IB_NODE_SWITCH) {
			p->guid = ip->guid;
			p->base_lid = ip->base_lid;
			p->lmc = ip->base_lid ? ip->lmc : 0;
		}
		p->width = width_lanes(mad_get_field(ip->info, 0,
					IB_PORT_LINK_WIDTH_ACTIVE_F));
		p->speed = port_speed(ip);
	}
	b->gi[b->n].guid = node->guid;
	b->gi[b->n++].node = n;
}

static void link_one(ibnd_node_t *node, void *user)
{
	struct build *b = user;
	uint32_t n = node_of(b->gi, b->n, node->guid);

	for (int i = 1; !b->rc && i <= node->numports; i++) {
		ibnd_port_t *ip = node->ports[i], *rp;
		uint32_t a, rn, q;

		if (!ip || !(rp = ip->remoteport))
			continue;
		rn = node_of(b->gi, b->n, rp->node->guid);
		a = vf_fabric_port(b->f, n, i);
		q = rn == VF_NONE ? VF_NONE :
		    vf_fabric_port(b->f, rn, rp->portnum);
		if (a == VF_NONE || q == VF_NONE) {
			b->rc = -EINVAL;
			return;
		}
		if (b->f->ports[a].remote == VF_NONE &&
		    b->f->ports[q].remote == VF_NONE &&
		    vf_fabric_link(b->f, a, q))
			b->rc = -EINVAL;
	}
}

static void count_one(ibnd_node_t *node, void *user)
{
	size_t *n = user;

	(void)node;
	(*n)++;
}

static ibnd_fabric_t *discover(struct vf_err *err)
{
	struct ibnd_config cfg = { 0 };
	ibnd_fabric_t *fab;

	cfg.timeout_ms = 1000;
	cfg.retries = 3;
	fab = ibnd_discover_fabric(live_ca, live_port, NULL, &cfg);
	if (!fab)
		vf_err_set(err, "live: discovery failed on %s port %d",
			   live_ca ? live_ca : "the first HCA", live_port);
	return fab;
}

static struct vf_fabric *from_ibnd(ibnd_fabric_t *fab, unsigned lmc,
				   const struct vf_lid_keeps *keep,
				   struct vf_err *err)
{
	struct build b = { 0 };
	size_t count = 0;
	int rc;

	ibnd_iter_nodes(fab, count_one, &count);
	b.f = vf_fabric_create();
	b.gi = calloc(count + 1, sizeof(*b.gi));
	if (!b.f || !b.gi) {
		vf_err_set(err, "out of memory");
		goto fail;
	}
	ibnd_iter_nodes(fab, add_one, &b);
	if (b.rc) {
		vf_err_set(err, "live: building the fabric: %s",
			   strerror(-b.rc));
		goto fail;
	}
	qsort(b.gi, b.n, sizeof(*b.gi), cmp_gi);
	ibnd_iter_nodes(fab, link_one, &b);
	rc = b.rc;
	if (!rc)
		rc = keep && keep->n ? vf_fabric_keep_lids(b.f, lmc, keep) :
				       vf_fabric_assign_lids(b.f, lmc);
	if (!rc)
		rc = vf_fabric_finalize(b.f);
	if (rc) {
		vf_err_set(err, "live: fabric: %s", strerror(-rc));
		goto fail;
	}
	free(b.gi);
	return b.f;
fail:
	free(b.gi);
	vf_fabric_destroy(b.f);
	return NULL;
}

/* ---- LFTs by SMP */

struct lft_read {
	const struct vf_fabric *f;
	struct vf_lfts *t;
	struct ibmad_port *src;
	const char *failed;	/* the switch whose LFT could not be read */
	uint64_t failed_guid;
};

static void read_one(ibnd_node_t *node, void *user)
{
	struct lft_read *r = user;
	uint32_t n = vf_fabric_find_guid(r->f, node->guid);
	unsigned top = mad_get_field(node->switchinfo, 0,
				     IB_SW_LINEAR_FDB_TOP_F);
	uint8_t buf[IB_SMP_DATA_SIZE];
	uint8_t *row;

	if (r->failed || n == VF_NONE || !vf_is_switch(&r->f->nodes[n]))
		return;
	row = vf_lft_row(r->t, r->f->nodes[n].sw);
	if (top > VF_MAX_LID)
		top = VF_MAX_LID;
	for (unsigned blk = 0; blk <= top / 64; blk++) {
		if (!smp_query_via(buf, &node->path_portid,
				   IB_ATTR_LINEARFORWTBL, blk, 0, r->src)) {
			r->failed = node->nodedesc;
			r->failed_guid = node->guid;
			return;
		}
		for (unsigned i = 0; i < 64; i++) {
			unsigned lid = blk * 64 + i;

			if (lid <= top && lid <= r->t->max_lid)
				row[lid] = buf[i];
		}
	}
}

static int read_lfts(ibnd_fabric_t *fab, const struct vf_fabric *f,
		     struct vf_lfts *t, struct vf_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	struct lft_read r = { .f = f, .t = t };
	int rc = vf_lfts_init(t, f->num_switches, f->max_lid);

	if (rc)
		return vf_err_set(err, "out of memory");
	r.src = mad_rpc_open_port(live_ca, live_port, classes, 2);
	if (!r.src)
		return vf_err_set(err, "live: cannot open %s port %d for SMPs",
				  live_ca ? live_ca : "the first HCA",
				  live_port);
	ibnd_iter_nodes_type(fab, read_one, IB_NODE_SWITCH, &r);
	mad_rpc_close_port(r.src);
	if (r.failed)
		return vf_err_set(err, "live: reading the LFT of switch 0x%016" PRIx64 " \"%s\" failed",
				  r.failed_guid, r.failed);
	return 0;
}

/* ---- the CLI's entry points */

struct vf_fabric *vf_cli_topo(const char *topo, unsigned lmc,
			      const struct vf_lid_keeps *keep,
			      struct vf_err *err)
{
	struct vf_fabric *f;

	if (strcmp(topo, VF_LIVE)) {
		f = keep ? vf_netfile_load_keep(topo, lmc, keep, err) :
			   vf_netfile_load(topo, lmc, err);
	} else {
		ibnd_fabric_t *fab = discover(err);

		f = fab ? from_ibnd(fab, lmc, keep, err) : NULL;
		if (fab)
			ibnd_destroy_fabric(fab);
	}
	if (f && apply_map(f, err)) {
		vf_fabric_destroy(f);
		f = NULL;
	}
	return f;
}

struct vf_fabric *vf_cli_routed(const char *topo, const char *lfts,
				unsigned lmc, struct vf_lfts *t,
				struct vf_err *err)
{
	ibnd_fabric_t *fab;
	struct vf_fabric *f;

	if (strcmp(lfts, VF_LIVE)) {
		if (strcmp(topo, VF_LIVE)) {
			f = vf_load_routed(topo, lfts, lmc, t, err);
			if (f && apply_map(f, err)) {
				vf_fabric_destroy(f);
				f = NULL;
			}
			return f;
		}
		/* a live subnet has all its LIDs: nothing to keep */
		f = vf_cli_topo(topo, lmc, NULL, err);
		if (f && vf_lftdump_load(lfts, f, t, err)) {
			vf_fabric_destroy(f);
			f = NULL;
		}
		return f;
	}
	/* live LFTs: from the switches of the fabric as discovered now */
	fab = discover(err);
	if (!fab)
		return NULL;
	if (strcmp(topo, VF_LIVE))
		f = vf_netfile_load(topo, lmc, err);
	else
		f = from_ibnd(fab, lmc, NULL, err);
	if (f && (read_lfts(fab, f, t, err) || apply_map(f, err))) {
		vf_fabric_destroy(f);
		f = NULL;
	}
	ibnd_destroy_fabric(fab);
	return f;
}

/* ---- names */

/* Does desc's first word (up to a blank) equal name? */
static bool first_word_is(const char *desc, const char *name)
{
	size_t len = strcspn(desc, " \t");

	return len && len == strlen(name) && !strncmp(desc, name, len);
}

/* Node n's node-name-map name, else its NodeDesc. */
static const char *mapped_name(const struct vf_fabric *f, uint32_t n)
{
	if (f == mapped_fabric && n < num_mapped && mapped[n])
		return mapped[n];
	return vf_node_desc(f, &f->nodes[n]);
}

/* Does node n match name at level 0 (id), 1 (description), 2 (host)? */
static bool hit(const struct vf_fabric *f, uint32_t n, const char *name,
		int level)
{
	const char *d = vf_node_desc(f, &f->nodes[n]), *o = mapped_name(f, n);

	if (level == 0)
		return !strcmp(vf_node_name(f, &f->nodes[n]), name);
	if (level == 1)
		return !strcmp(d, name) || !strcmp(o, name);
	return first_word_is(d, name) || first_word_is(o, name);
}

uint32_t vf_cli_find_node(const struct vf_fabric *f, const char *name,
			  const char *what)
{
	uint32_t n = VF_NONE;
	char *end;
	uint64_t guid = strtoull(name, &end, 0);

	for (int level = 0; level < 3; level++) {
		uint32_t count = 0;

		for (uint32_t i = 0; i < f->num_nodes; i++)
			if (hit(f, i, name, level) && !count++)
				n = i;
		if (count == 1)
			return n;
		if (!count)
			continue;
		fprintf(stderr, "vfabric: %s: ambiguous, %u nodes match:\n",
			what, count);
		for (uint32_t i = 0; i < f->num_nodes; i++)
			if (hit(f, i, name, level))
				fprintf(stderr, "  \"%s\" (%s, GUID 0x%016" PRIx64 ")\n",
					mapped_name(f, i),
					vf_node_name(f, &f->nodes[i]),
					f->nodes[i].guid);
		return VF_NONE;
	}
	if (!*end && guid) {
		n = vf_fabric_find_guid(f, guid);
		if (n == VF_NONE) {
			uint32_t p = vf_fabric_end_port(f, guid);

			n = p == VF_NONE ? VF_NONE : f->ports[p].node;
		}
		if (n != VF_NONE)
			return n;
	}
	fprintf(stderr, "vfabric: %s: no such node (node id, GUID, NodeDesc, node-name-map name or host name)\n",
		what);
	return VF_NONE;
}
