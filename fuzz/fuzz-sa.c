// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The plugin's SA handlers (plugin/sa_path.c, plugin/sa_mcast.c) fed raw
 * SA MADs, linked with the real libopensm/libosmcomp.  Once: the fixed
 * fabric becomes an OpenSM subnet in memory (OpenSM's constructors,
 * fuzz/sa-subnet.c), the plugin's own vf_fabric_from_subnet() models it,
 * a tenant configuration is planned on that model and routed, the
 * switches' LFTs and the ports' P_Key tables are programmed from it, and
 * the SA policy snapshot is built for each PathSelection.
 *
 * Input: byte 0 picks the PathSelection (bits 0-1) and sa_log (bit 2),
 * bytes 1-2 the requester's LID (big-endian), the rest is the SA MAD
 * (zero-padded to 256 bytes).  It goes where OpenSM's dispatcher sends
 * it, by attribute: PathRecord Get/GetTable, MultiPathRecord, or
 * MCMemberRecord Set/Delete/Get, ServiceRecord (Set and Delete checked).
 *
 * osm_sa_send_error() and osm_sa_respond() are defined here, so the
 * handlers' calls come to us: every request gets exactly one outcome (an
 * error status, records, or OpenSM's own handler), error statuses are
 * valid SA/MAD statuses, malformed requests get errors, and every record
 * is between ports of the subnet with a P_Key both tables hold, a full
 * member on at least one end, an SL and MTU in range.
 */
#include <opensm/osm_config.h>
#include <opensm/osm_helper.h>
#include <opensm/osm_madw.h>
#include <opensm/osm_node.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_pkey.h>
#include <opensm/osm_port.h>
#include <opensm/osm_sa.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "fuzz/sa-subnet.h"
#include "partition/load.h"
#include "partition/plan.h"
#include "partition/sapolicy.h"
#include "plugin/plugin.h"
#include "plugin/sa.h"
#include "routing/engine.h"

/* conf/vfabric-tenants.xml's layout, with QoS limits and a Standby VF */
static const char config_xml[] =
	"<Config><Common><Applications>"
	"<Application><Name>AllOthers</Name><Select>UnmatchedServiceID</Select>"
	"<Select>UnmatchedMGID</Select></Application>"
	"<Application><Name>IPv4</Name><MGIDMasked>0xff00401b00000000:0*"
	"0xff00ffff0000ffff:0xffffffff00000000</MGIDMasked></Application>"
	"<Application><Name>Storage</Name><ServiceID>0x00000000010603DB"
	"</ServiceID><ServiceIDRange>0x0000000001060000-0x000000000106FFFF"
	"</ServiceIDRange></Application>"
	"<Application><Name>Compute</Name><ServiceIDRange>0x0000000001000000-"
	"0x0000000001FFFFFF</ServiceIDRange><IncludeApplication>IPv4"
	"</IncludeApplication></Application>"
	"</Applications><DeviceGroups>"
	"<DeviceGroup><Name>Compute_A</Name><NodeDesc>cn[0001-0006]*</NodeDesc>"
	"</DeviceGroup>"
	"<DeviceGroup><Name>Compute_B</Name><NodeDesc>cn[0007-0099]*</NodeDesc>"
	"</DeviceGroup>"
	"<DeviceGroup><Name>Storage</Name><NodeDesc>stor*</NodeDesc>"
	"<NodeDesc>oss*</NodeDesc></DeviceGroup>"
	"<DeviceGroup><Name>Admin</Name><NodeDesc>adm*</NodeDesc>"
	"<IncludeGroup>Self</IncludeGroup></DeviceGroup>"
	"</DeviceGroups><VirtualFabrics>"
	"<VirtualFabric><Name>Compute_A</Name><Enable>1</Enable><Security>1</Security>"
	"<Member>Compute_A</Member><Application>Compute</Application>"
	"<QOS>1</QOS><Bandwidth>40%</Bandwidth><MaxMTU>2048</MaxMTU>"
	"<PktLifeTimeMult>4</PktLifeTimeMult></VirtualFabric>"
	"<VirtualFabric><Name>Compute_B</Name><Enable>1</Enable><Security>1</Security>"
	"<Member>Compute_B</Member><Application>Compute</Application>"
	"<QOS>1</QOS><Bandwidth>40%</Bandwidth><MaxRate>10g</MaxRate>"
	"</VirtualFabric>"
	"<VirtualFabric><Name>Services</Name><Enable>1</Enable><Security>1</Security>"
	"<Member>Storage</Member><Member>Admin</Member>"
	"<LimitedMember>Compute_A</LimitedMember>"
	"<LimitedMember>Compute_B</LimitedMember>"
	"<Application>Storage</Application><Application>AllOthers</Application>"
	"</VirtualFabric>"
	"<VirtualFabric><Name>Spare</Name><Enable>1</Enable><Standby>1</Standby>"
	"<Member>Storage</Member><Application>Storage</Application>"
	"</VirtualFabric>"
	"</VirtualFabrics></Common></Config>\n";

#define SM_GUID 0x0002c90300000041ull	/* adm01's port */

static osm_opensm_t osm;
static cl_plock_t lock;
static struct vf_plugin plugin;
static struct vf_sa_policy *policy[4];	/* by enum vf_path_selection */

/* How the handlers answered the current request. */
static struct {
	unsigned errors, responses, to_opensm;
	ib_net16_t status;
	unsigned records;
} out;

static void to_opensm(void *context, void *data)
{
	out.to_opensm++;
}

static void quiet(void *ctx, enum vf_log_level level, const char *msg)
{
}

static bool valid_status(ib_net16_t st)
{
	switch (st) {
	case IB_MAD_STATUS_UNSUP_METHOD_ATTR:
	case IB_MAD_STATUS_INVALID_FIELD:
	case IB_SA_MAD_STATUS_NO_RESOURCES:
	case IB_SA_MAD_STATUS_REQ_INVALID:
	case IB_SA_MAD_STATUS_NO_RECORDS:
	case IB_SA_MAD_STATUS_TOO_MANY_RECORDS:
	case IB_SA_MAD_STATUS_INVALID_GID:
	case IB_SA_MAD_STATUS_INSUF_COMPS:
		return true;
	default:
		return false;
	}
}

void osm_sa_send_error(IN osm_sa_t *sa, IN const osm_madw_t *p_madw,
		       IN ib_net16_t sa_status)
{
	out.errors++;
	out.status = sa_status;
	VF_FUZZ_CHECK(valid_status(sa_status), "error status 0x%04x",
		      cl_ntoh16(sa_status));
}

/* A P_Key table entry of port for pkey (15 bits), full preferred; 0 none. */
static uint16_t entry(const osm_port_t *port, uint16_t pkey)
{
	const osm_pkey_tbl_t *t = osm_physp_get_pkey_tbl(port->p_physp);
	const ib_net16_t *e = cl_map_get(&t->keys, cl_hton16(pkey | 0x8000));

	if (!e)
		e = cl_map_get(&t->keys, cl_hton16(pkey));
	return e ? cl_ntoh16(*e) : 0;
}

static void check_path(const ib_path_rec_t *pr)
{
	const osm_port_t *s = osm_get_port_by_lid(&osm.subn, pr->slid);
	const osm_port_t *d = osm_get_port_by_lid(&osm.subn, pr->dlid);
	uint16_t pkey = cl_ntoh16(pr->pkey) & 0x7fff, se, de;

	VF_FUZZ_CHECK(s && d, "record %u>%u: LIDs of no port",
		      cl_ntoh16(pr->slid), cl_ntoh16(pr->dlid));
	VF_FUZZ_CHECK(pr->sgid.unicast.interface_id == osm_port_get_guid(s) &&
		      pr->dgid.unicast.interface_id == osm_port_get_guid(d),
		      "record GIDs are not its LIDs' ports");
	VF_FUZZ_CHECK(ib_mtu_is_valid(pr->mtu & 0x3f) &&
		      ib_rate_is_valid(pr->rate & 0x3f) &&
		      (pr->mtu >> 6) == 2 && (pr->rate >> 6) == 2,
		      "record MTU 0x%02x rate 0x%02x", pr->mtu, pr->rate);
	if (!pr->pkey)
		return;		/* raw traffic: no P_Key */
	se = entry(s, pkey);
	de = entry(d, pkey);
	VF_FUZZ_CHECK(se && de, "record %u>%u with P_Key 0x%04x one end lacks",
		      cl_ntoh16(pr->slid), cl_ntoh16(pr->dlid), pkey);
	/* two limited members cannot talk, but a port reaches itself (the
	 * FM answers loopback paths in its limited VFs too) */
	VF_FUZZ_CHECK((se | de) & 0x8000 || s == d,
		      "record %u>%u between two limited members of 0x%04x",
		      cl_ntoh16(pr->slid), cl_ntoh16(pr->dlid), pkey);
}

void osm_sa_respond(osm_sa_t *sa, osm_madw_t *madw, size_t attr_size,
		    cl_qlist_t *list)
{
	cl_list_item_t *i;

	out.responses++;
	VF_FUZZ_CHECK(attr_size == sizeof(ib_path_rec_t),
		      "records of %zu bytes", attr_size);
	while ((i = cl_qlist_remove_head(list)) != cl_qlist_end(list)) {
		/* items are SA_ITEM_RESP_SIZE(path_rec) bytes: by offset */
		check_path((const ib_path_rec_t *)((const char *)i +
				offsetof(osm_sa_item_t, resp.path_rec)));
		out.records++;
		free(i);
	}
}

/* The fabric, plan, routes and policies: once. */
static void setup(void)
{
	const struct vf_fabric *f = vf_fuzz_fabric(1);
	struct vf_plan_opts po = { 0 };
	const char *path = vf_fuzz_file((const uint8_t *)config_xml,
					sizeof(config_xml) - 1);
	struct vf_config *c = malloc(sizeof(*c));
	struct vf_assignment a = { 0 };
	struct vf_resolution r;
	struct vf_route_opts ro;
	struct vf_diag d = { 0 };
	struct vf_fabric *g;
	struct vf_lfts t;
	struct vf_plan plan;
	bool vfabric;
	uint32_t sm;

	vf_log_set_sink(quiet, NULL);
	if (!vf_fuzz_opensm_load()) {
		fprintf(stderr, "sa: no opensm binary to take OpenSM's code from: skipped\n");
		exit(77);
	}
	vf_fuzz_subnet_build(&osm, f, SM_GUID);
	cl_plock_init(&lock);
	osm.sa.p_lock = &lock;
	osm.sa.p_log = &osm.log;
	osm.sa.p_subn = &osm.subn;
	g = vf_fabric_from_subnet(&osm.subn, NULL, true);	/* the plugin's own model */
	if (!c || !g || vf_config_load(path, c, &d, &vfabric)) {
		for (unsigned i = 0; i < d.n; i++)
			fprintf(stderr, "%s\n", d.v[i].text);
		abort();
	}
	c->refs = 1;
	sm = vf_fabric_end_port(g, SM_GUID);
	vf_route_opts_default(&ro);
	if (vf_resolve(&r, c, g, sm) || vf_plan_build(&r, &po, &a, &plan, &d) ||
	    vf_lfts_init(&t, g->num_switches, g->max_lid) ||
	    vf_route_shortestpath(g, &ro, &t))
		abort();
	vf_fuzz_subnet_program(&osm, g, &t, &plan);
	/* the tenants' partitions exist: answers can have records */
	if (plan.num_parts != 4) {
		fprintf(stderr, "sa: %u partitions planned, 4 expected\n",
			plan.num_parts);
		abort();
	}
	if (getenv("VF_FUZZ_VERBOSE"))
		for (unsigned i = 0; i < plan.num_parts; i++)
			fprintf(stderr, "sa: partition %s 0x%04x: %u members\n",
				plan.parts[i].name, plan.parts[i].pkey,
				plan.parts[i].num_members);
	for (unsigned i = 0; i < 4; i++) {
		policy[i] = vf_sa_policy_build(c, &r, &plan,
					       (enum vf_path_selection)i);
		if (!policy[i])
			abort();
	}
	vf_config_release(c);
	vf_resolution_free(&r);
	vf_plan_free(&plan);
	vf_lfts_free(&t);
	vf_assignment_free(&a);
	vf_diag_free(&d);
	vf_fabric_destroy(g);
	plugin.osm = &osm;
	vf_options_default(&plugin.opts);
	plugin.sa.pr.cb = to_opensm;
	plugin.sa.mcmr_set.cb = to_opensm;
}

/* VF_FUZZ_VERBOSE: the subnet as built, to see what requests can reach. */
static void dump(void)
{
	const cl_qmap_t *t = &osm.subn.port_guid_tbl;

	for (const cl_map_item_t *i = cl_qmap_head(t); i != cl_qmap_end(t);
	     i = cl_qmap_next(i)) {
		const osm_port_t *p = (const osm_port_t *)i;
		const osm_pkey_tbl_t *k = osm_physp_get_pkey_tbl(p->p_physp);
		uint16_t lo, hi;

		osm_port_get_lid_range_ho(p, &lo, &hi);
		fprintf(stderr, "sa: port 0x%016llx LIDs %u-%u row %lld P_Keys",
			(unsigned long long)cl_ntoh64(p->guid), lo, hi,
			(long long)vf_sa_policy_row(policy[0],
						    cl_ntoh64(p->guid)));
		for (cl_map_iterator_t e = cl_map_head(&k->keys);
		     e != cl_map_end(&k->keys); e = cl_map_next(e))
			fprintf(stderr, " 0x%04x",
				cl_ntoh16(*(const ib_net16_t *)cl_map_obj(e)));
		fputc('\n', stderr);
	}
}

/* An IPoIB broadcast group of Compute_A's P_Key: joins are checked. */
static void add_group(void)
{
	ib_member_rec_t rec;
	uint16_t pkey = policy[0]->vf_pkey[0] | 0x8000;

	memset(&rec, 0, sizeof(rec));
	rec.mgid.raw[0] = 0xff;
	rec.mgid.raw[1] = 0x12;
	rec.mgid.raw[2] = 0x40;
	rec.mgid.raw[3] = 0x1b;
	rec.mgid.raw[4] = (uint8_t)(pkey >> 8);
	rec.mgid.raw[5] = (uint8_t)pkey;
	memset(&rec.mgid.raw[12], 0xff, 4);
	rec.pkey = cl_hton16(pkey);
	rec.mtu = 2 << 6 | IB_MTU_LEN_2048;
	rec.rate = 2 << 6 | IB_PATH_RECORD_RATE_10_GBS;
	if (!osm_mgrp_new(&osm.subn, cl_hton16(0xc001), &rec))
		abort();
}

static void path_record(const struct vf_sa_policy *pol, osm_madw_t *madw)
{
	const ib_sa_mad_t *mad = osm_madw_get_sa_mad_ptr(madw);
	uint64_t comp = cl_ntoh64(mad->comp_mask);
	bool method_ok = mad->method == IB_MAD_METHOD_GET ||
			 mad->method == IB_MAD_METHOD_GETTABLE;

	if (mad->method == IB_MAD_METHOD_SET ||
	    mad->method == IB_MAD_METHOD_DELETE) {
		/* plugin/sa.c's on_path_record_set: refused outright */
		osm_sa_send_error(&osm.sa, madw,
				  IB_MAD_STATUS_UNSUP_METHOD_ATTR);
		return;
	}
	vf_sa_path_record(&plugin, pol, madw);
	if (!method_ok)
		VF_FUZZ_CHECK(out.errors == 1 && out.status ==
			      IB_MAD_STATUS_UNSUP_METHOD_ATTR,
			      "PathRecord method 0x%02x not refused",
			      mad->method);
	else if (comp & ((1ull << 7) | ~((1ull << 23) - 1)))
		VF_FUZZ_CHECK(out.errors == 1 && out.status ==
			      IB_SA_MAD_STATUS_REQ_INVALID,
			      "reserved component mask bits not refused");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready, verbose;
	/* MAD_BLOCK_SIZE bytes, aligned as OpenSM's MAD pool gives them */
	static uint64_t buf[MAD_BLOCK_SIZE / 8];
	uint8_t *raw = (uint8_t *)buf;
	ib_sa_mad_t *mad = (ib_sa_mad_t *)buf;
	osm_madw_t madw;
	const struct vf_sa_policy *pol;
	size_t n;

	if (!ready) {
		verbose = getenv("VF_FUZZ_VERBOSE") != NULL;
		setup();
		add_group();
		if (verbose)
			dump();
		ready = true;
	}
	if (size < 3)
		return 0;
	pol = policy[data[0] & 3];
	plugin.opts.sa_log = data[0] & 4;
	memset(buf, 0, sizeof(buf));
	n = size - 3 < sizeof(buf) ? size - 3 : sizeof(buf);
	memcpy(raw, data + 3, n);
	memset(&madw, 0, sizeof(madw));
	madw.p_mad = (ib_mad_t *)buf;
	madw.mad_size = MAD_BLOCK_SIZE;
	madw.mad_addr.dest_lid = cl_hton16((uint16_t)(data[1] << 8 | data[2]));
	memset(&out, 0, sizeof(out));

	switch (mad->attr_id) {
	case IB_MAD_ATTR_PATH_RECORD:
		path_record(pol, &madw);
		break;
	case IB_MAD_ATTR_MULTIPATH_RECORD:
		vf_sa_multipath_record(&plugin, pol, &madw);
		if (mad->method != IB_MAD_METHOD_GETMULTI)
			VF_FUZZ_CHECK(out.errors == 1,
				      "MultiPathRecord method 0x%02x not refused",
				      mad->method);
		break;
	case IB_MAD_ATTR_MCMEMBER_RECORD:
		if (!vf_sa_mcmember_refused(&plugin, pol, &madw))
			to_opensm(NULL, &madw);
		else
			VF_FUZZ_CHECK(out.errors == 1 && out.status ==
				      IB_SA_MAD_STATUS_REQ_INVALID,
				      "a refused join without REQ_INVALID");
		break;
	case IB_MAD_ATTR_SERVICE_RECORD:
		if (!vf_sa_service_refused(&plugin, &madw))
			to_opensm(NULL, &madw);
		else
			VF_FUZZ_CHECK(out.errors == 1 && out.status ==
				      IB_SA_MAD_STATUS_REQ_INVALID &&
				      (mad->method == IB_MAD_METHOD_SET ||
				       mad->method == IB_MAD_METHOD_DELETE),
				      "a refused ServiceRecord request without REQ_INVALID, or not a Set/Delete");
		break;
	default:
		return 0;	/* not an attribute the plugin handles */
	}
	if (verbose)
		fprintf(stderr, "sa: attr 0x%04x method 0x%02x: %s 0x%04x, %u records%s\n",
			cl_ntoh16(mad->attr_id), mad->method,
			out.errors ? "error" : "status", cl_ntoh16(out.status),
			out.records, out.to_opensm ? ", to OpenSM" : "");
	VF_FUZZ_CHECK(out.errors + out.responses + out.to_opensm == 1,
		      "%u errors, %u responses, %u to OpenSM for one request",
		      out.errors, out.responses, out.to_opensm);
	return 0;
}
