/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * A management key as a receiver holds it (the AR_Key of a switch, in the
 * way of IBA's M_Key, 14.2.4): while a key is held, the requests that
 * need it must carry it.  The lease is for a takeover: a new master SM
 * that does not know the key is refused, its refusal starts the lease,
 * and when the lease runs out with no request carrying the key from the
 * master SM, the key lapses and the new SM may set its own.
 *
 * Deviation from M_Key, on purpose: only a refusal of a request from the
 * master SM's port starts the lease.  Any host can send a MAD with a wrong
 * key; if that started the lease, a host could run a key out by sending
 * garbage (M_Key's known weakness).  The SLID, which the fabric sets, says
 * who is the master SM.
 *
 * Pure C, no I/O, no clock of its own: the caller passes the time.
 */
#ifndef VF_MGMTKEY_H
#define VF_MGMTKEY_H

#include <stdbool.h>
#include <stdint.h>

struct vf_mkey {
	uint64_t key;			/* 0: none held, nothing is required */
	uint16_t lease_s;		/* 0: the key never lapses */
	uint64_t lease_end_ms;		/* a running lease, or 0 */
	uint32_t refused;		/* requests refused for their key */
};

/* Does a request carrying `carried` pass?  A refusal is counted; one from
 * the master SM's port starts the lease (if not running), a pass from it
 * stops the lease. */
bool vf_mkey_check(struct vf_mkey *k, uint64_t carried, bool from_sm,
		   uint64_t now_ms);

/* Lapse the key if its lease ran out by now_ms; true when it just did. */
bool vf_mkey_expire(struct vf_mkey *k, uint64_t now_ms);

/* Hold key with lease_s (0 clears protection); stops a running lease. */
void vf_mkey_set(struct vf_mkey *k, uint64_t key, uint16_t lease_s);

/* Seconds left of a running lease (rounded up), 0 when none runs. */
uint16_t vf_mkey_lease_left_s(const struct vf_mkey *k, uint64_t now_ms);

#endif /* VF_MGMTKEY_H */
