/* bufpool.c — the C buffers of MkBufferC objects, recycled.  Every ReadBUF
 * and IndexGet result is a new MkBufferC (a copy the caller may keep), and
 * the GC frees those in bursts of thousands as it sweeps: through malloc
 * that is a malloc, a memset and a free per copy, most of them past the
 * allocator's per-thread cache (~290 instructions a copy, callgrind).
 * Released buffers wait on a free list for the next copies instead.
 *
 * Used with the GVL held: every allocation, and the sweep, which runs the
 * objects' dfree with it.  Bounded: at most POOL_MAX buffers (~400 KB; 512
 * caught a fifth of a BUS run's frees, 4096 nearly all), and a buffer whose
 * value lives in a heap block (a STR or BIN of 40 bytes or more) is freed,
 * not kept, so the list holds no large blocks. */
#include "runtime.h"

enum { POOL_MAX = 4096, INLINE_BYTES = 40 }; /* the kernel keeps shorter values inline */

static MkBufferC *pool[POOL_MAX];
static int pooled;

/* A buffer off the list, still holding its last value, or a new one. */
static MkBufferC *
take(void)
{
    return pooled ? pool[--pooled] : MkBufferCreate();
}

MkBufferC *
mqrb_buf_create(void)
{
    MkBufferC *buf = take();
    if (buf)
        MkBufferReset(buf);
    return buf;
}

/* Whether buf's value is in a heap block of its own. */
static int
on_heap(MkBufferC *buf)
{
    MkTypeE t = MkBufferGetType(buf);
    const void *data;
    size_t size = 0;
    if (t != MK_TYPE_STR && t != MK_TYPE_BIN)
        return 0;
    MkBufferGetBIN(buf, &data, &size);
    return size >= INLINE_BYTES;
}

void
mqrb_buf_delete(MkBufferC *buf)
{
    if (!buf)
        return;
    if (pooled == POOL_MAX || on_heap(buf)) {
        MkBufferDelete(buf);
        return;
    }
    pool[pooled++] = buf;
}

/* A new MkBufferC object holding a copy of buf (NULL: an empty one).  The
 * object first, its C buffer second: the object's allocation may sweep,
 * which refills the list, and a NoMemoryError then leaves nothing behind. */
VALUE
mqrb_from_BUF(MkBufferC *buf)
{
    VALUE v = TypedData_Wrap_Struct(mqrb_cMkBufferC, &mqrb_MkBufferC_type, NULL);
    MkBufferC *copy = buf ? take() : mqrb_buf_create(); /* a copy sets every field */
    if (!copy)
        rb_memerror();
    if (buf && MkBufferCopy(copy, buf) != MK_OK) {
        mqrb_buf_delete(copy);
        mqrb_raise_kernel();
    }
    RTYPEDDATA_DATA(v) = copy;
    return v;
}

/* The buffers on the list, for the tests. */
static VALUE
buf_pooled(VALUE self)
{
    return INT2FIX(pooled);
}

void
mqrb_bufpool_init(VALUE module)
{
    rb_define_private_method(rb_singleton_class(module), "buffers_pooled", buf_pooled, 0);
}
