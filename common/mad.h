/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * What every MAD codec of ours needs: big-endian field access and the
 * 24-byte MAD common header (IBA 13.4.2), shared by the AR protocol
 * (routing/arproto) and the Ethernet management protocol (vnic/ema) so
 * that neither keeps its own copy.  Header only: no library to link.
 */
#ifndef VF_MAD_H
#define VF_MAD_H

#include <stdint.h>

#define VF_MAD_HDR 24		/* bytes of the common header */

struct vf_mad_hdr {
	uint8_t base_version, mgmt_class, class_version, method;
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
};

static inline void vf_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void vf_put32(uint8_t *p, uint32_t v)
{
	vf_put16(p, (uint16_t)(v >> 16));
	vf_put16(p + 2, (uint16_t)v);
}

static inline void vf_put64(uint8_t *p, uint64_t v)
{
	vf_put32(p, (uint32_t)(v >> 32));
	vf_put32(p + 4, (uint32_t)v);
}

static inline uint16_t vf_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t vf_get32(const uint8_t *p)
{
	return (uint32_t)vf_get16(p) << 16 | vf_get16(p + 2);
}

static inline uint64_t vf_get64(const uint8_t *p)
{
	return (uint64_t)vf_get32(p) << 32 | vf_get32(p + 4);
}

/* Write h into the first VF_MAD_HDR bytes of mad (reserved bytes 0). */
static inline void vf_mad_put_hdr(uint8_t *mad, const struct vf_mad_hdr *h)
{
	mad[0] = h->base_version;
	mad[1] = h->mgmt_class;
	mad[2] = h->class_version;
	mad[3] = h->method;
	vf_put16(mad + 4, h->status);
	vf_put16(mad + 6, h->class_specific);
	vf_put64(mad + 8, h->tid);
	vf_put16(mad + 16, h->attr_id);
	vf_put16(mad + 18, 0);
	vf_put32(mad + 20, h->attr_mod);
}

/* Read the first VF_MAD_HDR bytes of mad; the caller checked the length. */
static inline void vf_mad_get_hdr(const uint8_t *mad, struct vf_mad_hdr *h)
{
	h->base_version = mad[0];
	h->mgmt_class = mad[1];
	h->class_version = mad[2];
	h->method = mad[3];
	h->status = vf_get16(mad + 4);
	h->class_specific = vf_get16(mad + 6);
	h->tid = vf_get64(mad + 8);
	h->attr_id = vf_get16(mad + 16);
	h->attr_mod = vf_get32(mad + 20);
}

/* The IBA's MTU codes (PortInfo, PathRecord): 1 is 256 bytes ... 5 4096;
 * 0 for what is none. */
static inline unsigned vf_mtu_bytes(uint8_t code)
{
	return code >= 1 && code <= 5 ? 128u << code : 0;
}

static inline uint8_t vf_mtu_code(unsigned bytes)
{
	for (uint8_t code = 1; code <= 5; code++)
		if (vf_mtu_bytes(code) == bytes)
			return code;
	return 0;
}

#endif /* VF_MAD_H */
