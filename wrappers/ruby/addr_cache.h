/* addr_cache.h — which Ruby object stands for a C object, found by the C
 * object's address in a table of fixed size: a stream's or list's view
 * (view.c) and a thread-owned object's wrapper (runtime.c: CreateTLS).
 *
 * Each address hashes to a set of two ways, the one used last first, and a
 * new address takes the other way.  So two objects used in turn (BUST's
 * stream and list, a service's two CreateTLS buffers) never take each
 * other's place, whatever their addresses; with one way per set they did
 * whenever their addresses shared a slot, 1 run in 32, and every call then
 * made a new object.  Used with the GVL held. */
#ifndef MQRB_ADDR_CACHE_H
#define MQRB_ADDR_CACHE_H

#include <stdint.h>

typedef struct {
    void *key; /* the C object; NULL: empty */
    VALUE value;
} mqrb_addr_way;
typedef struct {
    mqrb_addr_way way[2]; /* way[0]: used last */
} mqrb_addr_set;

/* The set of key in a table of 1 << bits sets (Fibonacci hashing: malloc's
 * addresses differ mostly in their middle bits). */
static inline mqrb_addr_set *
mqrb_addr_set_of(mqrb_addr_set *table, unsigned bits, const void *key)
{
    return &table[((uint64_t)(uintptr_t)key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits)];
}

/* key's way, made way[0]; NULL when the set does not hold key. */
static inline mqrb_addr_way *
mqrb_addr_find(mqrb_addr_set *s, const void *key)
{
    mqrb_addr_way w;

    if (s->way[0].key == key)
        return &s->way[0];
    if (s->way[1].key != key)
        return NULL;
    w = s->way[1];
    s->way[1] = s->way[0];
    s->way[0] = w;
    return &s->way[0];
}

/* Puts key (not in the set) in way[0]; returns the value it pushed out of
 * the set, 0 when none. */
static inline VALUE
mqrb_addr_put(mqrb_addr_set *s, void *key, VALUE value)
{
    VALUE out = s->way[1].key ? s->way[1].value : 0;

    s->way[1] = s->way[0];
    s->way[0].key = key;
    s->way[0].value = value;
    return out;
}

/* Empties way w of set s, the set's other entry first: put takes the
 * second way, which must be the empty one while the set has one. */
static inline void
mqrb_addr_drop(mqrb_addr_set *s, mqrb_addr_way *w)
{
    if (w == &s->way[0])
        s->way[0] = s->way[1];
    s->way[1].key = NULL;
    s->way[1].value = 0;
}

static inline void
mqrb_addr_mark(const mqrb_addr_set *table, unsigned bits)
{
    for (size_t i = 0; i < (size_t)1 << bits; i++)
        for (int w = 0; w < 2; w++)
            if (table[i].way[w].key)
                rb_gc_mark(table[i].way[w].value);
}

#endif
