// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Data path counters to EMA counters.  The simulator's own kinds of rx
 * error (bad MAD, P_Key, 16B, ICRC, reassembly) have no Omni-Path
 * counter of their own: they are rx_logic there, so that rx_errors
 * stays the sum of its kinds on both sides.
 */
#include "vnic/dp-ema.h"

void vf_dp_ema_counters(const struct vf_dp_counters *c,
			struct vf_ema_summary *s, struct vf_ema_errors *e)
{
	uint64_t *tx[VF_DP_SIZE_BUCKETS] = {
		&s->tx_64, &s->tx_65_127, &s->tx_128_255, &s->tx_256_511,
		&s->tx_512_1023, &s->tx_1024_1518, &s->tx_1519_max };
	uint64_t *rx[VF_DP_SIZE_BUCKETS] = {
		&s->rx_64, &s->rx_65_127, &s->rx_128_255, &s->rx_256_511,
		&s->rx_512_1023, &s->rx_1024_1518, &s->rx_1519_max };

	s->tx_errors = e->tx_errors = vf_dp_tx_errors(c);
	s->rx_errors = e->rx_errors = vf_dp_rx_errors(c);
	s->tx_packets = c->tx_packets;
	s->rx_packets = c->rx_packets;
	s->tx_bytes = c->tx_bytes;
	s->rx_bytes = c->rx_bytes;
	s->tx_unicast = c->tx_unicast;
	s->tx_mcastbcast = c->tx_mcastbcast;
	s->tx_untagged = c->tx_untagged;
	s->tx_vlan = c->tx_vlan;
	s->rx_unicast = c->rx_unicast;
	s->rx_mcastbcast = c->rx_mcastbcast;
	s->rx_untagged = c->rx_untagged;
	s->rx_vlan = c->rx_vlan;
	for (int i = 0; i < VF_DP_SIZE_BUCKETS; i++) {
		*tx[i] = c->tx_size[i];
		*rx[i] = c->rx_size[i];
	}
	e->tx_smac_filt = 0;		/* no source-MAC filter here */
	e->tx_dlid_zero = c->tx_dlid_zero;
	e->tx_logic = c->tx_logic + c->tx_oversize;
	e->tx_drop_state = c->tx_drop_state;
	e->rx_bad_veswid = c->rx_bad_veswid;
	e->rx_runt = c->rx_runt;
	e->rx_oversize = c->rx_oversize;
	e->rx_eth_down = 0;		/* down is DROP_ALL: rx_drop_state */
	e->rx_drop_state = c->rx_drop_state;
	e->rx_logic = c->rx_logic + c->rx_bad_mad + c->rx_bad_pkey +
		      c->rx_bad_16b + c->rx_bad_icrc + c->rx_reasm_timeout +
		      c->rx_reasm_evicted;
}
