// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric check FILE: read a vFabric configuration the way the plugin
 * does, print every error and warning with file, line and object, and
 * summarise what it defines.  An administrator runs it before pointing
 * OpenSM at a changed file.
 *
 * vfabric resolve FILE --topo NET: what the plugin would program on that
 * fabric: every end port's P_Keys (with the index a port coming up
 * afresh gets them at: OpenSM puts the port's indx0 partition, else the
 * default one, at 0, then the others in the order of its partition map,
 * keyed by the P_Key in network byte order; a full and limited pair
 * limited first), each VF's P_Key and SL, and the memberships a too-small
 * P_Key table would lose.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition/diag.h"
#include "partition/emit.h"
#include "partition/isolation.h"
#include "partition/load.h"
#include "partition/plan.h"
#include "partition/qos.h"
#include "partition/query.h"
#include "partition/resolution.h"
#include "partition/sapolicy.h"
#include "partition/vftraffic.h"
#include "routing/netfile.h"
#include "routing/vfjson.h"
#include "tools/cli/cfgcmd.h"
#include "tools/cli/livefabric.h"

/*
 * What path starts with: 1 '<' (the XML front-end reads it), 2 anything
 * else, 0 when it cannot be read (the loader says why).
 */
static int sniff(const char *path)
{
	unsigned char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n, i = 0;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < n && isspace(buf[i]))
		i++;
	return i < n && buf[i] == '<' ? 1 : 2;
}

/* Is s[0..n) a partition name as partitions.conf spells one (blanks around
 * it aside)? */
static bool partition_name(const char *s, size_t n)
{
	bool any = false;

	for (size_t i = 0; i < n; i++) {
		if (isalnum((unsigned char)s[i]) || strchr("_.-", s[i]))
			any = true;
		else if (!isspace((unsigned char)s[i]))
			return false;
	}
	return any;
}

/* "NAME = ... :": the head of a partition definition. */
static bool partition_header(char *stmt, size_t n)
{
	const char *eq, *colon;

	stmt[n] = '\0';
	eq = strchr(stmt, '=');
	colon = eq ? strchr(eq, ':') : NULL;
	return colon && partition_name(stmt, eq - stmt);
}

/*
 * Does the file hold a statement shaped like a partition definition
 * (comments aside)?  Then it is a partitions.conf with mistakes, however
 * many, and each is said with its line.  A statement is cut at 4 KiB.
 */
static bool has_partition_header(const char *path)
{
	FILE *f = fopen(path, "r");
	char stmt[4096];
	size_t n = 0;
	bool found = false, comment = false;
	int ch;

	if (!f)
		return false;
	while (!found && (ch = getc(f)) != EOF) {
		if (ch == '\n')
			comment = false;
		else if (ch == '#')
			comment = true;
		if (comment)
			continue;
		if (ch == ';' || n == sizeof(stmt) - 1) {
			found = partition_header(stmt, n);
			n = 0;
		}
		if (ch != ';')
			stmt[n++] = (char)ch;
	}
	found = found || partition_header(stmt, n);
	fclose(f);
	return found;
}

/*
 * A file with errors, more than twice as many as its statements that read
 * as partitions.conf (most often none), and that is no XML either (an
 * opensm.conf, a binary, JSON, a README): one short message naming what
 * was expected and the first error, instead of a hundred that each echo
 * a piece of the file.
 */
static bool unrecognised(const char *path, const struct vf_config *c,
			 const struct vf_diag *d)
{
	const char *first = NULL, *at;
	size_t plen = strlen(path);
	unsigned line = 0;
	int len;

	if (d->errors <= 2 * c->clean_statements || sniff(path) != 2 ||
	    has_partition_header(path))
		return false;
	for (unsigned i = 0; i < d->n && !first; i++)
		if (d->v[i].level == VF_DIAG_ERROR)
			first = d->v[i].text;
	/* empty, blank or comment-only: said as such */
	if (!first || strstr(first, "defines no VirtualFabric or partition"))
		return false;
	/* "FILE:LINE: what" or "FILE: what" */
	at = first;
	if (!strncmp(at, path, plen) && at[plen] == ':') {
		at += plen + 1;
		line = (unsigned)strtoul(at, (char **)&at, 10);
		if (*at == ':')
			at++;
		while (*at == ' ')
			at++;
	}
	len = (int)strcspn(at, "\n");
	fprintf(stderr, "error: %s: neither a vFabric XML file (opafm.xml style: <Config> with <VirtualFabrics>...) nor partitions.conf syntax (Name=PKey : members ;): ",
		path);
	if (line)
		fprintf(stderr, "line %u: ", line);
	fprintf(stderr, "%.*s%s\n", len > 80 ? 80 : len, at,
		len > 80 || at[len] ? "..." : "");
	return true;
}

/*
 * Load path into c, printing every diagnostic; *warnings counts the
 * warnings.  0 clean, 1 errors, 3 not a configuration at all (said).  A
 * file that defines no VirtualFabric or partition (empty, blank,
 * comment-only) is an error: it would give the fabric no policy at all,
 * and the plugin does not apply one.
 */
static int load_report(const char *path, struct vf_config *c,
		       unsigned *warnings)
{
	struct vf_diag d = { 0 };
	bool vfabric;
	int rc = vf_config_load(path, c, &d, &vfabric);

	*warnings = 0;
	if (rc && unrecognised(path, c, &d)) {
		vf_diag_free(&d);
		return 3;
	}
	for (unsigned i = 0; i < d.n; i++) {
		fprintf(stderr, "%s: %s\n",
			d.v[i].level == VF_DIAG_ERROR ? "error" : "warning",
			d.v[i].text);
		*warnings += d.v[i].level == VF_DIAG_WARN;
	}
	if (d.dropped)
		fprintf(stderr, "error: ... and %u more messages (%u errors in all)\n",
			d.dropped, d.errors);
	if (d.oom)
		fprintf(stderr, "error: out of memory\n");
	if (!rc && !c->num_vfs) {
		fprintf(stderr, "error: %s: defines no VirtualFabric or partition (an empty, blank or comment-only file gives the fabric no policy)\n",
			path);
		rc = 1;
	}
	if (!rc && !vfabric)
		fprintf(stderr, "note: %s is a plain OpenSM partitions.conf; the plugin applies it with stock OpenSM's meaning (the SA answers as stock)\n",
			path);
	vf_diag_free(&d);
	return rc ? 1 : 0;
}

int vf_cli_load_config(const char *path, struct vf_config *c)
{
	unsigned warnings;

	return load_report(path, c, &warnings) ? 1 : 0;
}

static unsigned enabled_vfs(const struct vf_config *c)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->num_vfs; i++)
		n += c->vfs[i].enable;
	return n;
}

/*
 * With --topo NET, what only a fabric can show: groups and patterns that
 * select nothing there, ports a shared P_Key lets reach each other.
 * Returns how many warnings, or -1 on an error (printed).
 */
static int check_on_fabric(const struct vf_config *c, const char *topo)
{
	struct vf_err err = { "" };
	struct vf_diag d = { 0 };
	struct vf_fabric *f = vf_cli_topo(topo, 0, NULL, &err);
	struct vf_resolution r;
	int n;

	if (!f) {
		fprintf(stderr, "vfabric: %s\n", err.msg);
		return -1;
	}
	if (vf_resolve(&r, c, f, VF_NONE) || vf_warn_fabric(&r, &d)) {
		fprintf(stderr, "vfabric: out of memory\n");
		vf_resolution_free(&r);
		vf_diag_free(&d);
		vf_fabric_destroy(f);
		return -1;
	}
	vf_resolution_free(&r);
	for (unsigned i = 0; i < d.n; i++)
		fprintf(stderr, "warning: %s\n", d.v[i].text);
	n = (int)d.n;
	vf_diag_free(&d);
	vf_fabric_destroy(f);
	return n;
}

int vf_cmd_check_config(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "strict", no_argument, NULL, 's' },
		{ "topo", required_argument, NULL, 't' },
		{ 0 }
	};
	const char *topo = NULL;
	struct vf_config c;
	unsigned warnings;
	bool strict = false;
	int rc, o, fabric = 0;

	optind = 1;
	while ((o = getopt_long(argc, argv, "st:", opts, NULL)) != -1) {
		if (o == 's')
			strict = true;
		else if (o == 't')
			topo = optarg;
		else
			goto usage;
	}
	if (optind != argc - 1)
		goto usage;
	rc = load_report(argv[optind], &c, &warnings);
	if (rc == 3) {
		vf_config_free(&c);
		return 1;
	}
	if (!rc && topo)
		fabric = check_on_fabric(&c, topo);
	if (fabric < 0)
		rc = 1;
	/* --strict: warnings are errors, as the FM's config_check -s */
	if (strict && (warnings || fabric > 0)) {
		fprintf(stderr, "error: %s: %u warnings, and --strict makes them errors\n",
			argv[optind], warnings + (fabric > 0 ? fabric : 0));
		rc = 1;
	}
	printf("%s: %s: %u applications, %u device groups, %u QoS groups, %u virtual fabrics (%u enabled)",
	       argv[optind], rc ? "errors" : "ok", vf_config_own_apps(&c),
	       vf_config_own_dgs(&c),
	       c.num_qos_groups, c.num_vfs, enabled_vfs(&c));
	if (c.em.num_vesws)
		printf(", %u virtual Ethernet switches", c.em.num_vesws);
	if (warnings)
		printf(", %u warnings", warnings);
	if (topo && fabric >= 0)
		printf("; on %s: %d warnings", topo, fabric);
	printf("\n");
	vf_config_free(&c);
	return rc ? 1 : 0;
usage:
	fprintf(stderr,
		"usage: vfabric check [--strict] FILE [--topo NET]\nTry 'vfabric --help'.\n");
	return 2;
}

static const char *const member_word[] = {
	[VF_MEMBER_LIMITED] = "limited", [VF_MEMBER_FULL] = "full",
	[VF_MEMBER_BOTH] = "both",
};

/* Partition k's membership of port slot p (members are by port slot). */
static uint8_t membership(const struct vf_partition *part, uint32_t p)
{
	unsigned lo = 0, hi = part->num_members;

	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (part->members[mid].port < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < part->num_members && part->members[lo].port == p ?
	       part->members[lo].membership : VF_MEMBER_NONE;
}

/*
 * Partitions in the order OpenSM's partition map holds them: a cl_qmap
 * keyed by the P_Key as stored, in network byte order (so 0x0100 comes
 * before 0x0001, and 0x7fff last).
 */
static unsigned map_key(uint16_t pkey)
{
	return (unsigned)(pkey >> 8 | (pkey & 0xff) << 8);
}

static int by_map_key(const void *a, const void *b)
{
	const struct vf_partition *x = *(const struct vf_partition *const *)a;
	const struct vf_partition *y = *(const struct vf_partition *const *)b;

	return (int)map_key(x->pkey) - (int)map_key(y->pkey);
}

/*
 * One P_Key table entry: appended to the JSON array pkeys, or printed
 * when pkeys is NULL.  0 or -ENOMEM.
 */
static int print_entry(const struct vf_partition *part, uint8_t m,
		       unsigned index, struct json_object *pkeys)
{
	struct json_object *e;
	int rc = 0;

	if (!pkeys) {
		printf(" %u:0x%04x(%s)", index,
		       part->pkey | (m == VF_MEMBER_LIMITED ? 0 : 0x8000),
		       part->name);
		return 0;
	}
	e = json_object_new_object();
	rc |= vf_json_add(e, "pkey", vf_json_hex(part->pkey, 4));
	rc |= vf_json_add(e, "index", json_object_new_int64(index));
	rc |= vf_json_add(e, "membership",
			  json_object_new_string(member_word[m]));
	rc |= vf_json_add(e, "partition", vf_json_bytes(part->name));
	return rc | vf_json_push(pkeys, e);
}

/*
 * End port p's P_Keys, index 0 first, then the map's order: appended to
 * the JSON array ports, or printed as a line when ports is NULL.
 */
static int print_port(const struct vf_plan *plan,
		      const struct vf_fabric *f, uint32_t p,
		      struct vf_partition **order, unsigned n,
		      struct json_object *ports)
{
	const struct vf_port *port = &f->ports[p];
	const char *desc = vf_node_desc(f, &f->nodes[port->node]);
	uint16_t idx0 = vf_plan_port_index0(plan, p);
	struct json_object *o = NULL, *pkeys = NULL;
	unsigned index = 0;
	int rc = 0;

	if (ports) {
		o = json_object_new_object();
		pkeys = json_object_new_array();
		rc |= vf_json_add(o, "guid", vf_json_hex(port->guid, 16));
		rc |= vf_json_add(o, "desc", vf_json_bytes(desc));
		rc |= vf_json_add(o, "port", json_object_new_int(port->num));
		/* the array stays valid for the entries once added to o */
		json_object_get(pkeys);
		rc |= vf_json_add(o, "pkeys", pkeys);
		if (rc) {
			json_object_put(pkeys);
			json_object_put(o);
			return -ENOMEM;
		}
	} else {
		printf("0x%016llx %-24s %3u ", (unsigned long long)port->guid,
		       desc, port->num);
	}
	for (unsigned k = 0; k < n; k++) {
		uint8_t m = membership(order[k], p);

		if ((order[k]->pkey | 0x8000) != (idx0 | 0x8000))
			continue;
		rc |= print_entry(order[k], m, index, pkeys);
		index += m == VF_MEMBER_BOTH ? 2 : 1;
	}
	for (unsigned k = 0; k < n; k++) {
		uint8_t m = membership(order[k], p);

		if (m == VF_MEMBER_NONE ||
		    (order[k]->pkey | 0x8000) == (idx0 | 0x8000))
			continue;
		rc |= print_entry(order[k], m, index, pkeys);
		index += m == VF_MEMBER_BOTH ? 2 : 1;
	}
	if (!ports) {
		printf("\n");
		return 0;
	}
	json_object_put(pkeys);
	return rc | vf_json_push(ports, o);
}

/* The plan as JSON: {"vfs": [...], "ports": [...], "dropped": N}. */
static int print_plan_json(const struct vf_config *c,
			   const struct vf_plan *plan,
			   const struct vf_fabric *f,
			   struct vf_partition **order)
{
	struct json_object *o = json_object_new_object();
	struct json_object *vfs = json_object_new_array();
	struct json_object *ports = json_object_new_array();
	int rc = 0;

	for (unsigned i = 0; i < c->num_vfs; i++) {
		struct json_object *v;

		if (!plan->vf_pkey[i])
			continue;
		v = json_object_new_object();
		rc |= vf_json_add(v, "name", vf_json_bytes(c->vfs[i].name));
		rc |= vf_json_add(v, "pkey", vf_json_hex(plan->vf_pkey[i], 4));
		rc |= vf_json_add(v, "sl", json_object_new_int(plan->vf_sl[i]));
		rc |= vf_json_push(vfs, v);
	}
	rc |= vf_json_add(o, "vfs", vfs);
	for (uint32_t p = 0; p < f->num_ports && ports; p++)
		if (membership(&plan->parts[0], p) != VF_MEMBER_NONE)
			rc |= print_port(plan, f, p, order, plan->num_parts,
					 ports);
	rc |= vf_json_add(o, "ports", ports);
	rc |= vf_json_add(o, "dropped", json_object_new_int64(plan->dropped));
	if (!rc)
		rc = vf_json_print(stdout, o, JSON_C_TO_STRING_PRETTY |
				   JSON_C_TO_STRING_SPACED);
	json_object_put(o);
	return rc;
}

/* The plan as text or JSON: 0, or -ENOMEM / -EIO. */
static int print_plan(const struct vf_config *c, const struct vf_plan *plan,
		      const struct vf_fabric *f, bool json)
{
	struct vf_partition **order = malloc((plan->num_parts + 1) *
					     sizeof(*order));
	int rc = 0;

	if (!order)
		return -ENOMEM;
	for (unsigned k = 0; k < plan->num_parts; k++)
		order[k] = &plan->parts[k];
	qsort(order, plan->num_parts, sizeof(*order), by_map_key);
	if (json) {
		rc = print_plan_json(c, plan, f, order);
		free(order);
		return rc;
	}
	printf("# virtual fabric: P_Key SL\n");
	for (unsigned i = 0; i < c->num_vfs; i++)
		if (plan->vf_pkey[i])
			printf("%s: 0x%04x %d\n", c->vfs[i].name,
			       plan->vf_pkey[i], plan->vf_sl[i]);
	printf("# port GUID, NodeDesc, port: index:P_Key(partition) (full members have bit 15 set)\n");
	for (uint32_t p = 0; p < f->num_ports; p++)
		if (membership(&plan->parts[0], p) != VF_MEMBER_NONE)
			print_port(plan, f, p, order, plan->num_parts, NULL);
	printf("# %u partitions; %u memberships dropped for P_Key table size\n",
	       plan->num_parts, plan->dropped);
	free(order);
	return 0;
}

/*
 * The QoS programme (text output only, and only with QoS VFs): classes,
 * then the tables a port with `vls` data VLs and VLArb tables of 8 (as
 * ibsim's and common HCAs') gets.
 */
static void print_qos(const struct vf_config *c, const struct vf_plan *plan,
		      unsigned vls)
{
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;
	struct vf_qos_port t;
	char line[2048];

	if (vf_qos_build(c, plan, &q, &d) || !q.active) {
		for (unsigned i = 0; i < d.n; i++)
			fprintf(stderr, "error: %s\n", d.v[i].text);
		vf_diag_free(&d);
		return;
	}
	for (unsigned i = 0; i < d.n; i++)
		fprintf(stderr, "warning: %s\n", d.v[i].text);
	vf_diag_free(&d);
	vf_qos_summary(&q, line, sizeof(line));
	printf("# QoS: %s\n", line);
	vf_qos_port_tables(&q, vls, 8, 8, &t);
	printf("# QoS on a port with %u data VLs%s: SL2VL", t.vls,
	       t.folded ? " (classes folded)" : "");
	for (unsigned sl = 0; sl < VF_QOS_NUM_SLS; sl++)
		printf(" %u", t.sl2vl[sl]);
	printf("; VLArb low");
	for (unsigned i = 0; i < t.num_low; i++)
		printf(" %u:%u", t.low[i].vl, t.low[i].weight);
	printf("; high");
	for (unsigned i = 0; i < t.num_high; i++)
		printf(" %u:%u", t.high[i].vl, t.high[i].weight);
	printf("%s; VLHighLimit %u\n", t.num_high ? "" : " none",
	       t.high_limit);
}

/* --pkey-cap: every node's P_Key table size (net files do not say). */
static void set_caps(struct vf_fabric *f, unsigned cap)
{
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		f->nodes[n].partition_cap = (uint16_t)cap;
		f->nodes[n].enforce_cap = (uint16_t)cap;
	}
}

/*
 * The SM's port slot from --sm: a port GUID (0x...), or a node by its name
 * in the file or its NodeDesc (a CA's first port, a switch's port 0).
 */
static uint32_t find_sm_port(const struct vf_fabric *f, const char *sm,
			     const char *what)
{
	char *end;
	uint64_t guid = strtoull(sm, &end, 0);
	uint32_t n = !*end && guid ? vf_fabric_end_port(f, guid) : VF_NONE;
	char buf[160];

	if (n != VF_NONE)
		return n;
	snprintf(buf, sizeof(buf), "%s %s", what, sm);
	n = vf_cli_find_node(f, sm, buf);
	if (n == VF_NONE)
		return VF_NONE;
	return f->nodes[n].first_port + (vf_is_switch(&f->nodes[n]) ? 0 : 1);
}

/* --alias ALIAS=PORTGUID: an SR-IOV alias GUID on a CA port. */
static int add_alias(struct vf_fabric *f, const char *arg)
{
	char *end;
	uint64_t alias = strtoull(arg, &end, 0), guid;
	uint32_t port;

	if (*end != '=' || !alias)
		return -1;
	guid = strtoull(end + 1, &end, 0);
	port = *end || !guid ? VF_NONE : vf_fabric_end_port(f, guid);
	if (port == VF_NONE || vf_is_switch(&f->nodes[f->ports[port].node]))
		return -1;
	return vf_fabric_add_alias(f, port, alias);
}

static void print_diag(const struct vf_diag *d)
{
	for (unsigned i = 0; i < d->n; i++)
		fprintf(stderr, "%s: %s\n", d->v[i].level == VF_DIAG_ERROR ?
			"error" : "warning", d->v[i].text);
}

void vf_cli_sweep_init(struct vf_cli_sweep *s, const struct vf_config *c,
		       const struct vf_fabric *f)
{
	memset(s, 0, sizeof(*s));
	s->c = c;
	s->f = f;
	s->sm_port = VF_NONE;
}

const struct vf_resolution *vf_cli_resolution(struct vf_cli_sweep *s)
{
	if (!s->resolved && vf_resolve(&s->r, s->c, s->f, s->sm_port)) {
		fprintf(stderr, "vfabric: out of memory\n");
		return NULL;
	}
	s->resolved = true;
	return &s->r;
}

const struct vf_plan *vf_cli_plan(struct vf_cli_sweep *s)
{
	const struct vf_resolution *r = vf_cli_resolution(s);
	struct vf_assignment fresh = { 0 };
	struct vf_diag d = { 0 };
	int rc;

	if (!r || s->planned)
		return r ? &s->plan : NULL;
	if (s->warn && vf_warn_fabric(r, &d)) {
		fprintf(stderr, "vfabric: out of memory\n");
		vf_diag_free(&d);
		return NULL;
	}
	rc = vf_plan_build(r, &s->po, s->assign ? s->assign : &fresh,
			   &s->plan, &d);
	if (!s->quiet)
		print_diag(&d);
	vf_diag_free(&d);
	vf_assignment_free(&fresh);
	if (rc)
		return NULL;
	s->planned = true;
	return &s->plan;
}

void vf_cli_sweep_free(struct vf_cli_sweep *s)
{
	if (s->planned)
		vf_plan_free(&s->plan);
	vf_resolution_free(&s->r);
	s->resolved = s->planned = false;
}

int vf_cmd_resolve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "assign", required_argument, NULL, 'a' },
		{ "sm", required_argument, NULL, 's' },
		{ "pkey-cap", required_argument, NULL, 'c' },
		{ "allow-both", no_argument, NULL, 'b' },
		{ "disconnect-unconfigured", no_argument, NULL, 'd' },
		{ "alias", required_argument, NULL, 'A' },
		{ "emit", required_argument, NULL, 'e' },
		{ "vls", required_argument, NULL, 'V' },
		{ 0 }
	};
	unsigned vls = 8;
	const char *aliases[64];
	unsigned num_aliases = 0;
	struct vf_plan_opts po = { 0 };
	const char *topo = NULL, *assign = NULL, *sm = NULL, *emit = NULL;
	struct vf_assignment a = { 0 };
	struct vf_err err = { "" };
	struct vf_diag d = { 0 };
	struct vf_fabric *f = NULL;
	struct vf_cli_sweep sw = { 0 };
	const struct vf_plan *plan;
	struct vf_config c;
	unsigned cap = 0;
	bool json = false;
	int ch, rc = 2;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "t:ja:s:c:bdA:e:V:", opts, NULL)) !=
	       -1) {
		switch (ch) {
		case 't': topo = optarg; break;
		case 'j': json = true; break;
		case 'a': assign = optarg; break;
		case 's': sm = optarg; break;
		case 'c': cap = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'b': po.allow_both_pkeys = true; break;
		case 'd': po.disconnect_unconfigured = true; break;
		case 'e': emit = optarg; break;
		case 'V': vls = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'A':
			if (num_aliases == 64)
				return 2;
			aliases[num_aliases++] = optarg;
			break;
		default:
			return 2;
		}
	}
	if (optind != argc - 1 || !topo) {
		fprintf(stderr, "usage: vfabric resolve FILE --topo NET [--json] [--sm NODE] [--assign FILE] [--pkey-cap N] [--allow-both] [--disconnect-unconfigured] [--alias ALIAS=PORTGUID]... [--emit PARTITIONS.CONF] [--vls N]\nTry 'vfabric --help'.\n");
		return 2;
	}
	if (vf_cli_load_config(argv[optind], &c)) {
		rc = 1;
		goto out;
	}
	f = vf_cli_topo(topo, 0, NULL, &err);
	if (!f) {
		fprintf(stderr, "vfabric: %s\n", err.msg);
		goto out;
	}
	set_caps(f, cap);
	for (unsigned i = 0; i < num_aliases; i++)
		if (add_alias(f, aliases[i])) {
			fprintf(stderr, "vfabric: --alias %s: ALIAS=PORTGUID of a CA port in %s\n",
				aliases[i], topo);
			rc = 2;
			goto out;
		}
	vf_cli_sweep_init(&sw, &c, f);
	if (sm) {
		sw.sm_port = find_sm_port(f, sm, "--sm");
		if (sw.sm_port == VF_NONE) {
			rc = 2;
			goto out;
		}
	}
	if (assign)
		vf_assignment_load(&a, assign, &d);
	print_diag(&d);
	sw.po = po;
	sw.assign = &a;
	sw.warn = true;
	plan = vf_cli_plan(&sw);
	rc = 1;
	if (!plan)
		goto out;
	rc = 0;
	if (print_plan(&c, plan, f, json)) {
		fprintf(stderr, "vfabric: out of memory\n");
		rc = 1;
	}
	if (!json)
		print_qos(&c, plan, vls ? vls : 1);
	if (assign && a.changed)
		vf_assignment_save(&a, assign);
	if (emit && vf_emit_partitions_file(emit, plan, f, argv[optind])) {
		fprintf(stderr, "vfabric: cannot write %s\n", emit);
		rc = 1;
	}
out:
	vf_cli_sweep_free(&sw);
	vf_diag_free(&d);
	vf_assignment_free(&a);
	vf_fabric_destroy(f);
	vf_config_free(&c);
	return rc;
}

/* The DeviceGroups port slot p is in, on one line. */
static void print_groups(const struct vf_config *c,
			 const struct vf_dg_members *m,
			 const struct vf_fabric *f, const char *what,
			 uint32_t p)
{
	printf("%s: %s port %u, in DeviceGroups:", what,
	       vf_node_desc(f, &f->nodes[f->ports[p].node]), f->ports[p].num);
	for (unsigned g = 0; g < c->num_dgs; g++)
		if (!c->dgs[g].synthesized && vf_dg_has(m, g, p))
			printf(" %s", c->dgs[g].name);
	printf("\n");
}

static void print_apps(const struct vf_config *c, uint64_t sid)
{
	for (int how = 2; how >= 1; how--) {
		printf("ServiceID 0x%016llx %s:", (unsigned long long)sid,
		       how == 2 ? "listed by Applications" :
		       "taken as unmatched by Applications");
		for (unsigned i = 0; i < c->num_apps; i++)
			if (vf_app_sid_match(c, &c->apps[i], sid) == how)
				printf(" %s", c->apps[i].name);
		printf("\n");
	}
}

static void print_answers(const struct vf_config *c,
			  const struct vf_path_answers *a)
{
	for (unsigned i = 0; i < a->trace.n; i++)
		printf("  %s\n", a->trace.v[i]);
	for (unsigned i = 0; i < a->n; i++) {
		const struct vf_path_answer *x = &a->v[i];
		char mtu[16] = "the path's", rate[16] = "the path's";
		char label[96];

		if (x->mtu)
			snprintf(mtu, sizeof(mtu), "%u", x->mtu);
		if (x->rate)
			snprintf(rate, sizeof(rate), "code %u", x->rate);
		printf("answer: P_Key 0x%04x SL %d MTU %s rate %s PktLifeTime +%u (%s)\n",
		       x->pkey, x->sl, mtu, rate, x->life_exp,
		       vf_config_vf_label(&c->vfs[x->vf], label,
					  sizeof(label)));
	}
}

/* explain --json: port slot p and its DeviceGroups. */
static struct json_object *groups_json(const struct vf_config *c,
				       const struct vf_dg_members *m,
				       const struct vf_fabric *f, uint32_t p,
				       int *rc)
{
	const struct vf_port *port = &f->ports[p];
	struct json_object *o = json_object_new_object();
	struct json_object *dgs = json_object_new_array();

	*rc |= vf_json_add(o, "guid", vf_json_hex(port->guid, 16));
	*rc |= vf_json_add(o, "desc", vf_json_bytes(
				   vf_node_desc(f, &f->nodes[port->node])));
	*rc |= vf_json_add(o, "port", json_object_new_int(port->num));
	for (unsigned g = 0; g < c->num_dgs; g++)
		if (!c->dgs[g].synthesized && vf_dg_has(m, g, p))
			*rc |= vf_json_push(dgs,
					    vf_json_bytes(c->dgs[g].name));
	*rc |= vf_json_add(o, "device_groups", dgs);
	return o;
}

/* explain --json: the Applications that list sid (how 2) or take it. */
static struct json_object *apps_json(const struct vf_config *c, uint64_t sid,
				     int how, int *rc)
{
	struct json_object *v = json_object_new_array();

	for (unsigned i = 0; i < c->num_apps; i++)
		if (vf_app_sid_match(c, &c->apps[i], sid) == how)
			*rc |= vf_json_push(v, vf_json_bytes(c->apps[i].name));
	return v;
}

/*
 * explain --json: what the text says, as one object.  An answer's mtu
 * (bytes) and rate (IB code) are 0 where the path's own are kept.
 */
static int print_explain_json(const struct vf_config *c,
			      const struct vf_dg_members *m,
			      const struct vf_fabric *f,
			      const uint32_t slots[2],
			      const struct vf_path_query *q,
			      const struct vf_path_answers *a)
{
	struct json_object *o = json_object_new_object();
	struct json_object *trace = json_object_new_array();
	struct json_object *answers = json_object_new_array();
	int rc = 0;

	rc |= vf_json_add(o, "source", groups_json(c, m, f, slots[0], &rc));
	rc |= vf_json_add(o, "destination",
			  groups_json(c, m, f, slots[1], &rc));
	if (q->sid_given) {
		struct json_object *apps = json_object_new_object();

		rc |= vf_json_add(o, "service_id", vf_json_hex(q->sid, 16));
		rc |= vf_json_add(apps, "listed", apps_json(c, q->sid, 2, &rc));
		rc |= vf_json_add(apps, "unmatched",
				  apps_json(c, q->sid, 1, &rc));
		rc |= vf_json_add(o, "applications", apps);
	}
	for (unsigned i = 0; i < a->trace.n; i++)
		rc |= vf_json_push(trace, vf_json_bytes(a->trace.v[i]));
	rc |= vf_json_add(o, "trace", trace);
	for (unsigned i = 0; i < a->n; i++) {
		const struct vf_path_answer *x = &a->v[i];
		struct json_object *y = json_object_new_object();
		char label[96];

		rc |= vf_json_add(y, "pkey", vf_json_hex(x->pkey, 4));
		rc |= vf_json_add(y, "sl", json_object_new_int(x->sl));
		rc |= vf_json_add(y, "mtu", json_object_new_int64(x->mtu));
		rc |= vf_json_add(y, "rate", json_object_new_int64(x->rate));
		rc |= vf_json_add(y, "pkt_life_exp",
				  json_object_new_int64(x->life_exp));
		rc |= vf_json_add(y, "vf", vf_json_bytes(c->vfs[x->vf].name));
		rc |= vf_json_add(y, "label", vf_json_bytes(
					  vf_config_vf_label(&c->vfs[x->vf],
							     label,
							     sizeof(label))));
		rc |= vf_json_push(answers, y);
	}
	rc |= vf_json_add(o, "answers", answers);
	if (!rc)
		rc = vf_json_print(stdout, o, JSON_C_TO_STRING_PRETTY |
				   JSON_C_TO_STRING_SPACED);
	json_object_put(o);
	return rc;
}

/*
 * explain: the SA's own snapshot (partition/sapolicy.h) of c as planned,
 * and the rows of the two ports in it, as the plugin's PathRecord handler
 * finds them.  0, or 1 after saying why.
 */
static int sa_snapshot(struct vf_config *c, const struct vf_resolution *r,
		       const struct vf_plan *plan, const uint32_t slots[2],
		       struct vf_sa_policy **pol, struct vf_path_query *q)
{
	int64_t src, dst;

	*pol = vf_sa_policy_build(c, r, plan, VF_PATHSEL_MINIMAL);
	if (!*pol) {
		fprintf(stderr, "vfabric: out of memory\n");
		return 1;
	}
	src = vf_sa_policy_row(*pol, r->fabric->ports[slots[0]].guid);
	dst = vf_sa_policy_row(*pol, r->fabric->ports[slots[1]].guid);
	if (src < 0 || dst < 0) {
		fprintf(stderr, "vfabric: --src and --dst must be end ports (a CA port or a switch)\n");
		return 1;
	}
	q->src = (uint32_t)src;
	q->dst = (uint32_t)dst;
	return 0;
}

int vf_cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },
		{ "sid", required_argument, NULL, 'i' },
		{ "pkey", required_argument, NULL, 'k' },
		{ "sl", required_argument, NULL, 'l' },
		{ "sm", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 }
	};
	const char *topo = NULL, *src = NULL, *dst = NULL, *sm = NULL;
	bool json = false;
	struct vf_path_query q = { .pkey = -1, .sl = -1 };
	struct vf_cli_sweep sw = { 0 };
	const struct vf_plan *plan;
	struct vf_sa_policy *pol = NULL;
	struct vf_err err = { "" };
	struct vf_path_answers a = { 0 };
	struct vf_fabric *f = NULL;
	/* on the heap, as the plugin's: the SA's snapshot holds it */
	struct vf_config *c = calloc(1, sizeof(*c));
	uint32_t slots[2];
	int ch, rc = 2;

	if (!c) {
		fprintf(stderr, "vfabric: out of memory\n");
		return 2;
	}
	vf_config_init(c);
	c->refs = 1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "t:s:d:i:k:l:m:j", opts, NULL)) !=
	       -1) {
		switch (ch) {
		case 't': topo = optarg; break;
		case 'j': json = true; break;
		case 's': src = optarg; break;
		case 'd': dst = optarg; break;
		case 'm': sm = optarg; break;
		case 'i':
			q.sid_given = true;
			q.sid = strtoull(optarg, NULL, 16);
			break;
		case 'k': q.pkey = (int)(strtoul(optarg, NULL, 0) & 0x7fff); break;
		case 'l': q.sl = (int)strtoul(optarg, NULL, 0); break;
		default:
			goto out;
		}
	}
	if (optind != argc - 1 || !topo || !src || !dst) {
		fprintf(stderr, "usage: vfabric explain FILE --topo NET --src NODE --dst NODE [--sid HEX] [--pkey P] [--sl N] [--sm NODE] [--json]\nTry 'vfabric --help'.\n");
		goto out;
	}
	rc = vf_cli_load_config(argv[optind], c);
	c->refs = 1;		/* loading starts the struct afresh */
	if (rc) {
		rc = 1;
		goto out;
	}
	rc = 2;
	f = vf_cli_topo(topo, 0, NULL, &err);
	if (!f) {
		fprintf(stderr, "vfabric: %s\n", err.msg);
		goto out;
	}
	vf_cli_sweep_init(&sw, c, f);
	slots[0] = find_sm_port(f, src, "--src");
	slots[1] = slots[0] == VF_NONE ? VF_NONE :
		   find_sm_port(f, dst, "--dst");
	sw.sm_port = sm ? find_sm_port(f, sm, "--sm") : VF_NONE;
	if (slots[0] == VF_NONE || slots[1] == VF_NONE ||
	    (sm && sw.sm_port == VF_NONE))
		goto out;
	rc = 1;
	sw.quiet = true;	/* what explain prints is its answer */
	plan = vf_cli_plan(&sw);
	if (!plan) {
		fprintf(stderr, "vfabric: the configuration cannot be resolved\n");
		goto out;
	}
	if (sa_snapshot(c, &sw.r, plan, slots, &pol, &q))
		goto out;
	if (vf_path_vfs(&pol->path, &q, true, &a)) {
		fprintf(stderr, "vfabric: the configuration cannot be resolved\n");
		goto out;
	}
	if (json) {
		if (print_explain_json(c, &sw.r.dg, f, slots, &q, &a)) {
			fprintf(stderr, "vfabric: out of memory\n");
			rc = 2;
			goto out;
		}
	} else {
		print_groups(c, &sw.r.dg, f, "source", slots[0]);
		print_groups(c, &sw.r.dg, f, "destination", slots[1]);
		if (q.sid_given)
			print_apps(c, q.sid);
		print_answers(c, &a);
	}
	rc = a.n ? 0 : 1;
out:
	vf_path_answers_free(&a);
	vf_sa_policy_release(pol);
	vf_cli_sweep_free(&sw);
	vf_fabric_destroy(f);
	vf_config_release(c);
	return rc;
}

int vf_cli_traffic(struct vf_cli_sweep *s, struct vf_traffic *tr)
{
	const struct vf_plan *plan = vf_cli_plan(s);
	int rc;

	if (!plan) {
		fprintf(stderr, "vfabric: the configuration cannot be resolved on this fabric\n");
		return 2;
	}
	rc = vf_traffic_build(&s->r, plan->vf_pkey, plan->num_vfs, tr);
	if (rc) {
		fprintf(stderr, "vfabric: %s\n", strerror(-rc));
		return 2;
	}
	return 0;
}
