// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vnic-endpoint's management side (docs/vnic-datapath.md, "Managed
 * endpoint"): EMA requests answered by the agent of vnic/ema-agent.h,
 * whose slot 0 is the vport the data path reads; the host's TAP up/down
 * and MAC fed to the agent, their traps sent; the EM's MAC and MTU put on the TAP;
 * the state dump.  Everything here runs in the receive thread with the
 * endpoint's lock held, so the data path never sees half a Set.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <infiniband/umad.h>

#include "sim/vnic-endpoint.h"
#include "vnic/dp-ema.h"

#define ATTR_PORT_INFO 0x0015
#define SMP_WAIT_MS 2000
#define REFUSALS_LOGGED 10	/* then only counted (state dump) */

uint64_t vnic_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void vnic_mac_str(const uint8_t *m, char *s)
{
	sprintf(s, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3],
		m[4], m[5]);
}

void vnic_mgmt_sync_tap(struct endpoint *ep)
{
	static const uint8_t zero[6];
	const struct vf_vport *v = ep->vp;
	char s[18];
	int err;

	/* a POD vport (0 MAC, 0 MTU) leaves the interface as it is */
	if (memcmp(v->base_mac, zero, 6) && !(v->base_mac[0] & 1) &&
	    memcmp(v->base_mac, ep->tap_mac, 6)) {
		err = vf_tap_set_mac(&ep->tap, v->base_mac);
		vnic_mac_str(v->base_mac, s);
		if (err) {
			ep->ms.tap_errors++;
			fprintf(stderr, "vnic-endpoint: cannot set MAC %s on %s: %s\n",
				s, ep->tap.name, strerror(-err));
		} else {
			printf("vnic-endpoint: %s MAC %s\n", ep->tap.name, s);
		}
		memcpy(ep->tap_mac, v->base_mac, 6);	/* no retry storm */
	}
	if (v->vesw.eth_mtu >= VF_VPORT_MIN_MTU &&
	    v->vesw.eth_mtu != ep->tap_mtu) {
		err = vf_tap_set_mtu(&ep->tap, v->vesw.eth_mtu);
		if (err) {
			ep->ms.tap_errors++;
			fprintf(stderr, "vnic-endpoint: cannot set MTU %u on %s: %s\n",
				v->vesw.eth_mtu, ep->tap.name, strerror(-err));
		} else {
			printf("vnic-endpoint: %s MTU %u\n", ep->tap.name,
			       v->vesw.eth_mtu);
		}
		ep->tap_mtu = v->vesw.eth_mtu;
	}
}

/* The trap in ep->u.sbuf to ClassPortInfo's trap LID and SL, QP 1. */
static void send_trap(struct endpoint *ep)
{
	const struct vf_ema_cpi *c = &ep->ema.cpi;

	umad_set_addr(ep->u.sbuf, (int)c->trap_lid, 1, c->trap_sl,
		      VF_UMADSIM_QP1_QKEY);
	if (umad_send(ep->u.fd, ep->ema_id, ep->u.sbuf, VF_EMA_MAD_SIZE, 0,
		      0) < 0) {
		ep->tx_send_errors++;
		return;
	}
	ep->ms.traps_sent++;
	printf("vnic-endpoint: trap %u to LID %u\n", ep->ema.trap_tid,
	       c->trap_lid);
}

/*
 * The master SM's LID as a CA knows it: PortInfo.MasterSMLID of its own
 * port, which the SM sets.  Read again when a Set comes from another LID,
 * so that a new master (a takeover) is followed; while it is read (MADs
 * that arrive meanwhile are handled from inside), the one held is used.
 */
static uint16_t master_sm_lid(struct endpoint *ep, uint16_t slid)
{
	uint8_t d[VF_UMADSIM_SMP_DATA];

	if (slid == ep->sm_lid || ep->in_smp)
		return ep->sm_lid;
	ep->in_smp = true;
	if (!vf_umadsim_local_smp(&ep->u, ATTR_PORT_INFO,
				  (uint32_t)ep->u.portnum, d, SMP_WAIT_MS))
		ep->sm_lid = (uint16_t)(d[18] << 8 | d[19]);
	ep->in_smp = false;
	return ep->sm_lid;
}

/* Say why a Set was refused, the first few times (then only count). */
static void log_refused(struct endpoint *ep, const uint8_t *req,
			uint16_t slid, uint16_t st)
{
	const char *more = "";
	char an[8], why[64];

	if (st != VF_EMA_NOT_SM && st != VF_EMA_BAD_KEY)
		return;
	if (++ep->ms.refusals_logged > REFUSALS_LOGGED)
		return;
	if (ep->ms.refusals_logged == REFUSALS_LOGGED)
		more = " (further refusals are only counted)";
	if (st == VF_EMA_NOT_SM)
		snprintf(why, sizeof(why),
			 "not the master SM's port (LID %u)", ep->sm_lid);
	else
		snprintf(why, sizeof(why), "it does not carry the EM key");
	printf("vnic-endpoint: refused Set %s from LID %u (status 0x%04x): %s%s\n",
	       vf_ema_attr_name((uint16_t)(req[16] << 8 | req[17]), an), slid,
	       st, why, more);
}

void vnic_mgmt_mad(struct endpoint *ep, int len)
{
	uint8_t mad[VF_UMADSIM_MAD_SIZE];
	ib_mad_addr_t addr = *umad_get_mad_addr(ep->u.rbuf);
	uint8_t *reply;
	struct vf_ema_slot *s = &ep->ema.slot[0];
	struct vf_ema_src src = { .slid = ntohs(addr.lid),
				  .now_ms = vnic_now_ms() };
	size_t n;

	if (len > VF_UMADSIM_MAD_SIZE)
		len = VF_UMADSIM_MAD_SIZE;
	/* apart from rbuf and sbuf: reading PortInfo below uses them */
	memcpy(mad, umad_get_mad(ep->u.rbuf), (size_t)len);

	ep->dirty = true;
	if (umad_status(ep->u.rbuf)) {
		/* one of ours came back: nobody takes class 0x3B there */
		if (mad[3] == VF_EMA_TRAP)
			ep->ms.traps_bounced++;
		else
			ep->ms.ignored++;
		return;
	}
	if (mad[3] == VF_EMA_TRAP && len >= VF_EMA_DATA &&
	    vf_ema_get_trap(mad, (size_t)len, &ep->ms.last_trap) == VF_EMA_OK)
		ep->ms.traps_received++;	/* another endpoint's: kept
						 * for the dump only */
	src.sm_lid = ep->sm_lid;
	if (len > 3 && mad[3] == VF_EMA_SET)
		src.sm_lid = master_sm_lid(ep, src.slid);
	vf_dp_ema_counters(&ep->dp.c, &s->summary, &s->errors);
	reply = umad_get_mad(ep->u.sbuf);
	n = vf_ema_agent_handle(&ep->ema, mad, (size_t)len, &src, reply,
				VF_UMADSIM_MAD_SIZE);
	if (!n) {
		ep->ms.ignored++;
		return;
	}
	ep->ms.requests++;
	if (reply[4] || reply[5])
		ep->ms.errors++;
	log_refused(ep, mad, src.slid, (uint16_t)(reply[4] << 8 | reply[5]));
	vf_umadsim_send(&ep->u, ep->ema_id, src.slid, (int)ntohl(addr.qpn),
			VF_EMA_MAD_SIZE);
	vnic_mgmt_sync_tap(ep);
}

/* The TAP's up/down into the agent: a link trap when it moved. */
static void track_admin(struct endpoint *ep, int up)
{
	uint8_t *trap = umad_get_mad(ep->u.sbuf);
	struct vf_vport *v = vf_ema_agent_vport(&ep->ema, 0);
	int r;

	if (!v || v->admin_up == (bool)up)
		return;
	r = vf_ema_agent_set_admin(&ep->ema, 0, up, vnic_now_ms(), trap,
				   VF_UMADSIM_MAD_SIZE);
	if (r == -EINVAL) {
		/* hfi1 refuses to open a VNIC without a vESW: so do we */
		if (!ep->refused_logged)
			printf("vnic-endpoint: %s is up but the vport has no vESW: stays down\n",
			       ep->tap.name);
		ep->refused_logged = true;
		return;
	}
	ep->refused_logged = false;
	ep->dirty = true;
	printf("vnic-endpoint: %s is %s: oper_state %u\n", ep->tap.name,
	       up ? "up" : "down", v->oper_state);
	if (r > 0)
		send_trap(ep);
}

/*
 * The TAP's MAC into the agent's unicast list: a host that changes it
 * (ip link set DEV address ...) gets a trap opcode 1, and the EM tells
 * the vESW's other members where that MAC lives.  The data path needs
 * nothing: it sends whatever source MAC the host wrote and filters no
 * destination MAC (the TAP's stack does).
 */
static void track_mac(struct endpoint *ep)
{
	uint8_t *trap = umad_get_mad(ep->u.sbuf);
	uint8_t hw[6];
	char s[18];
	int r;

	if (!vf_ema_agent_vport(&ep->ema, 0) || vf_tap_get_mac(&ep->tap, hw))
		return;
	r = vf_ema_agent_host_mac(&ep->ema, 0, hw, vnic_now_ms(), trap,
				  VF_UMADSIM_MAD_SIZE);
	if (r < 0 || ep->ema.slot[0].vport.uc_macs_gen_count == ep->uc_gen)
		return;
	ep->uc_gen = ep->ema.slot[0].vport.uc_macs_gen_count;
	ep->dirty = true;
	vnic_mac_str(hw, s);
	printf("vnic-endpoint: %s has MAC %s: %u unicast MACs of the host's own\n",
	       ep->tap.name, s, ep->ema.slot[0].uc.n);
	if (r > 0)
		send_trap(ep);
}

void vnic_mgmt_tick(struct endpoint *ep)
{
	int up = vf_tap_is_up(&ep->tap);

	if (vf_ema_agent_expire(&ep->ema, vnic_now_ms())) {
		/* recovery after a takeover: the new EM may set its key */
		printf("vnic-endpoint: the EM key's lease of %u s ran out with no Set carrying the key: key cleared\n",
		       ep->ema.auth.mkey.lease_s);
		ep->dirty = true;
	}

	if (up < 0)
		return;
	ep->host_up = up;
	track_admin(ep, up);
	track_mac(ep);
}

static const char *state_name(unsigned s)
{
	static const char *const names[] = { "NOP", "DROP_ALL", "INIT",
					     "FORWARDING" };

	return s < 4 ? names[s] : "?";
}

void vnic_print_state(struct endpoint *ep, FILE *out)
{
	const struct vf_vport *v = ep->vp;
	const struct vf_vesw *w = &v->vesw;
	const struct vnic_mgmt_stats *m = &ep->ms;
	unsigned entries = 0;
	char mac[18];

	vnic_mac_str(v->base_mac, mac);
	fprintf(out, "# vnic-endpoint lid %u vesw %u pkey 0x%04x mac %s tap %s oper_state %u\n",
		v->encap_slid, w->vesw_id, w->pkey, mac, ep->tap.name,
		v->oper_state);
	fprintf(out, "mode %s\nvp_base_mac %s\nvp_config %s\nvp_oper %s\n",
		ep->managed ? "managed" : "static", mac,
		state_name(v->config_state), state_name(v->oper_state));
	for (unsigned i = 0; i < VF_VPORT_MAC_TABLE; i++)
		entries += v->macs[i].mac[0] | v->macs[i].mac[1] |
			   v->macs[i].mac[2] | v->macs[i].mac[3] |
			   v->macs[i].mac[4] | v->macs[i].mac[5] ? 1 : 0;
	fprintf(out, "vp_exists %d\nvp_fabric_id %u\nvp_vesw_id %u\nvp_pkey %u\n"
		"vp_eth_mtu %u\nvp_def_port_mask %u\nvp_u_mcast_dlid %u\n"
		"vp_port_num %u\nvp_encap_slid %u\nvp_config_state %u\n"
		"vp_oper_state %u\nvp_eth_link_status %u\nvp_admin_up %d\n"
		"vp_mac_tbl_digest %u\nvp_mac_entries %u\nhost_up %d\n"
		"tap_mtu %u\n",
		v->exists, w->fabric_id, w->vesw_id, w->pkey, w->eth_mtu,
		w->def_port_mask, w->u_mcast_dlid, v->port_num, v->encap_slid,
		v->config_state, v->oper_state, v->eth_link_status,
		v->admin_up, v->mac_tbl_digest, entries, ep->host_up,
		ep->tap_mtu);
	for (unsigned i = 0; i < VF_VPORT_DEFAULT_PORTS; i++)
		if (w->def_port_mask >> i & 1)
			fprintf(out, "vp_u_ucast_dlid %u %u\n", i,
				w->u_ucast_dlid[i]);
	for (unsigned i = 0; i < VF_VPORT_MAC_TABLE; i++) {
		const struct vf_vport_mac *e = &v->macs[i];

		if (!(e->mac[0] | e->mac[1] | e->mac[2] | e->mac[3] |
		      e->mac[4] | e->mac[5]))
			continue;
		vnic_mac_str(e->mac, mac);
		fprintf(out, "mac %u %s dlid %u sd 0x%02x\n", i, mac,
			e->dlid_sd >> 8, e->dlid_sd & 0xff);
	}
	fprintf(out, "vp_uc_macs_gen_count %u\n", v->uc_macs_gen_count);
	for (unsigned i = 0; i < ep->ema.slot[0].uc.n; i++) {
		vnic_mac_str(ep->ema.slot[0].uc.mac[i], mac);
		fprintf(out, "host_ucast %s\n", mac);
	}
	fprintf(out, "ema_requests %llu\nema_errors %llu\nema_ignored %llu\n"
		"ema_trap_lid %u\nema_traps_sent %llu\nema_traps_bounced %llu\n"
		"ema_traps_received %llu\nema_tap_errors %llu\n",
		(unsigned long long)m->requests, (unsigned long long)m->errors,
		(unsigned long long)m->ignored, ep->ema.cpi.trap_lid,
		(unsigned long long)m->traps_sent,
		(unsigned long long)m->traps_bounced,
		(unsigned long long)m->traps_received,
		(unsigned long long)m->tap_errors);
	/* the key itself is never shown: the lease and the refusals are */
	fprintf(out, "ema_sm_lid %u\nema_key_held %d\nema_key_lease %u\n"
		"ema_key_lease_running %d\nema_refused_not_sm %llu\n"
		"ema_refused_bad_key %llu\nema_key_expired %llu\n",
		ep->sm_lid, ep->ema.auth.mkey.key != 0,
		ep->ema.auth.mkey.lease_s, ep->ema.auth.mkey.lease_end_ms != 0,
		(unsigned long long)ep->ema.auth.not_sm,
		(unsigned long long)ep->ema.auth.mkey.refused,
		(unsigned long long)ep->ema.auth.expired);
	if (m->traps_received)
		fprintf(out, "last_trap issuer %u vesw %u port_num %u vport %u opcode %u\n",
			m->last_trap.issuer_lid, m->last_trap.vesw_id,
			m->last_trap.port_num, m->last_trap.vport_index,
			m->last_trap.opcode);
	vf_dp_print_counters(&ep->dp.c, "", out);
	fprintf(out, "tx_send_errors %lu\ntx_bounced %lu\nrx_host_errors %lu\n",
		ep->tx_send_errors, ep->tx_bounced, ep->rx_host_errors);
	fprintf(out, "umad2sim_size_lines %llu\n",
		(unsigned long long)__atomic_load_n(&ep->umad2sim_lines,
						    __ATOMIC_RELAXED));
}

void vnic_write_state(struct endpoint *ep)
{
	char tmp[4096];
	FILE *out;

	ep->dirty = false;
	ep->dumped_mads = ep->dp.c.tx_mads + ep->dp.c.rx_mads +
			  ep->dp.c.tx_drop_state + ep->dp.c.tx_dlid_zero;
	if (!ep->state_file)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", ep->state_file);
	out = fopen(tmp, "w");
	if (!out)
		return;
	vnic_print_state(ep, out);
	if (fclose(out) == 0)
		rename(tmp, ep->state_file);
}
