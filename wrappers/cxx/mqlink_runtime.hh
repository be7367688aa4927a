// mqlink_runtime.hh — the hand-written part of the C++ binding: the
// exception, handles with RAII ownership, argument helpers and the callback
// machinery.  mqlink.hh (generated) includes it; include mqlink.hh only.
#ifndef MQLINK_RUNTIME_HH
#define MQLINK_RUNTIME_HH

#include <mqlink.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace mqlink {

class MqContextC;

/// A service, server setup or call callback: runs with the context the call
/// arrived on (a server instance).
using MqCallbackF = std::function<void(MqContextC &)>;

/// An mqlink call failed (or a service wants to fail): text and code.
class MkExceptionC : public std::exception {
  public:
    explicit MkExceptionC(std::string text, MK_I32 code = MK_ERR_USER)
        : text_(std::move(text)), code_(code) {}
    const char *what() const noexcept override { return text_.c_str(); }
    const std::string &text() const noexcept { return text_; }
    MK_I32 code() const noexcept { return code_; }

  private:
    std::string text_;
    MK_I32 code_;
};

/// Binary data passed in: a borrowed (pointer, size) made from a byte
/// vector, a string or a raw pair.
struct MkBinaryR {
    const void *data;
    size_t size;
    MkBinaryR(const void *d, size_t n) : data(d), size(n) {}
    MkBinaryR(const std::vector<uint8_t> &v) : data(v.data()), size(v.size()) {}
    MkBinaryR(const std::string &s) : data(s.data()), size(s.size()) {}
};

/// A string passed in: borrowed for the call from a C string (a literal: no
/// std::string is built per call) or a std::string.  nullptr is "".
class MkStringR {
  public:
    MkStringR(const char *s) : s_(s ? s : "") {}
    MkStringR(const std::string &s) : s_(s.c_str()) {}
    const char *c_str() const { return s_; }

  private:
    const char *s_;
};

namespace detail {

inline std::string str(const char *s) { return s ? std::string(s) : std::string(); }

inline std::vector<uint8_t> bin(const void *d, size_t n)
{
    const uint8_t *p = static_cast<const uint8_t *>(d);
    return std::vector<uint8_t>(p, p + n);
}

// The raise_* helpers are out of line and cold, so a wrapped call inlines to
// the deleted-object check, the C call and the test of its result (the
// exception's string would otherwise be built inline in every call).
#if defined(__GNUC__)
#define MQLINK_COLD __attribute__((noinline, cold))
#else
#define MQLINK_COLD
#endif

/// Kernel calls leave their reason in the thread's kernel error.
[[noreturn]] MQLINK_COLD inline void raise_kernel()
{
    MkErrorC *e = MkErrorDEFAULT();
    MkExceptionC x(MkErrorGetText(e), MkErrorGetCode(e));
    MkErrorReset(e);
    throw x;
}

/// Link calls leave their reason on the context.
[[noreturn]] MQLINK_COLD inline void raise_ctx(::MqContextC *ctx)
{
    MkExceptionC x(MqErrorGetText(ctx), MqErrorGetCode(ctx));
    MqErrorReset(ctx);
    throw x;
}

[[noreturn]] MQLINK_COLD inline void raise_deleted(const char *what)
{
    throw MkExceptionC(std::string("the ") + what + " was deleted", MK_ERR_ARGUMENT);
}

inline MkErrorE check_kernel(MkErrorE rc)
{
    if (rc == MK_ERROR)
        raise_kernel();
    return rc;
}

/// argv for MqLinkCreate, borrowed from the strings for the call.
class Argv {
  public:
    explicit Argv(const std::vector<std::string> &args)
    {
        for (const auto &a : args)
            v_.push_back(a.c_str());
        v_.push_back(nullptr);
    }
    int argc() const { return static_cast<int>(v_.size() - 1); }
    const char **argv() { return v_.data(); }

  private:
    std::vector<const char *> v_;
};

struct adopt_t {};

/// A kernel object: owned objects are freed by the destructor, thread-owned
/// ones (CreateTLS) never.  Move-only.
template <class Self, class C, C *(*Create)(), void (*Free)(C *)>
class Handle {
  public:
    Handle() : p_(Create()), owned_(true)
    {
        if (!p_)
            raise_kernel();
    }
    Handle(adopt_t, C *p, bool owned) : p_(p), owned_(owned) {}
    Handle(Handle &&o) noexcept : p_(o.p_), owned_(o.owned_) { o.p_ = nullptr; }
    Handle &operator=(Handle &&o) noexcept
    {
        if (this != &o) {
            Release();
            p_ = o.p_;
            owned_ = o.owned_;
            o.p_ = nullptr;
        }
        return *this;
    }
    Handle(const Handle &) = delete;
    Handle &operator=(const Handle &) = delete;
    ~Handle() { Release(); }

    /// Wrap a C object (owned: freed with this handle); NULL raises.
    static Self Adopt(C *p, bool owned = true)
    {
        if (!p)
            raise_kernel();
        return Self(adopt_t{}, p, owned);
    }
    /// The C object (borrowed).
    C *Ptr() const
    {
        if (!p_)
            raise_deleted("object");
        return p_;
    }

  protected:
    void Release()
    {
        if (p_ && owned_)
            Free(p_);
        p_ = nullptr;
    }

  private:
    C *p_;
    bool owned_;
};

enum class Scope { notified, once };

/// An exception thrown by a callback becomes its error (see fail); the
/// callback then returns MK_ERROR.
void fail(::MqContextC *ctx, Scope scope);
MqContextC *context_of(::MqContextC *ctx);

/// A std::function callback (a lambda): runs with the object of the context
/// the library calls it with.
struct Callback {
    MqCallbackF fn;
    Scope scope;
};

inline void cb_free(void *data) { delete static_cast<Callback *>(data); }
MkErrorE cb_call(::MqContextC *ctx, void *data);

/// A callback on its way to the library.  The C call takes it on MK_OK (and
/// frees it with cb_free when done with it); MK_ERROR leaves it with the
/// caller, and so does an exception before the call: then this frees it.
class CallbackHold {
  public:
    CallbackHold(MqCallbackF fn, Scope scope) : cb_(new Callback{std::move(fn), scope}) {}
    CallbackHold(const CallbackHold &) = delete;
    CallbackHold &operator=(const CallbackHold &) = delete;
    ~CallbackHold() { delete cb_; }
    void *get() const { return cb_; }
    /// The result of the C call that was given get(): all but MK_ERROR took it.
    MkErrorE taken(MkErrorE rc)
    {
        if (rc != MK_ERROR)
            cb_ = nullptr;
        return rc;
    }
    /// A C call without a result always takes it.
    void taken() { cb_ = nullptr; }

  private:
    Callback *cb_;
};

/// A member function as a service.  A service only ever runs on the context
/// it was created on, so the object is kept here: no std::function, no
/// lookup of the object from the C context per call.
template <class T>
struct Method {
    T *self;
    void (T::*fn)();
};

template <class T>
MkErrorE method_call(::MqContextC *ctx, void *data)
{
    const Method<T> *m = static_cast<const Method<T> *>(data);
    try {
        (m->self->*m->fn)();
        return MK_OK;
    } catch (...) {
        fail(ctx, Scope::notified);
    }
    return MK_ERROR;
}

template <class T>
void method_free(void *data) { delete static_cast<Method<T> *>(data); }

template <class T>
void service_create(::MqContextC *ctx, MkStringR token, T *self, void (T::*fn)())
{
    Method<T> *m = new Method<T>{self, fn};
    if (MqServiceCreate(ctx, token.c_str(), method_call<T>, m, method_free<T>) == MK_ERROR) {
        delete m; // not registered: still ours
        raise_ctx(ctx);
    }
}

/// A context and its C context point at each other; the destroy callback
/// clears the pointer whoever deletes the C context.  Server instances made
/// by the factory belong to the library, which deletes the object with it.
class ContextCore {
  public:
    ContextCore() : ctx_(MqContextCreate())
    {
        if (!ctx_)
            throw std::bad_alloc();
        attach();
    }
    ContextCore(adopt_t, ::MqContextC *ctx) : ctx_(ctx), lib_owned_(true) { attach(); }
    ContextCore(const ContextCore &) = delete;
    ContextCore &operator=(const ContextCore &) = delete;
    virtual ~ContextCore()
    {
        if (ctx_) {
            MqContextSetDestroyCallback(ctx_, nullptr, nullptr);
            MqContextSetUserData(ctx_, nullptr);
            MqContextDelete(ctx_);
        }
    }
    /// The C context (borrowed).
    ::MqContextC *Ptr() const
    {
        if (!ctx_)
            raise_deleted("context");
        return ctx_;
    }
    /// Hand the object to the library (a factory-made server instance).
    void SetLibraryOwned() { lib_owned_ = true; }

  protected:
    void Release()
    {
        if (ctx_)
            MqContextDelete(ctx_); // destroyed() clears ctx_
    }

  private:
    void attach()
    {
        MqContextSetUserData(ctx_, this);
        MqContextSetDestroyCallback(ctx_, &ContextCore::destroyed, this);
    }
    static void destroyed(::MqContextC *ctx, void *data)
    {
        ContextCore *self = static_cast<ContextCore *>(data);
        MqContextSetUserData(ctx, nullptr);
        self->ctx_ = nullptr;
        if (self->lib_owned_)
            delete self;
    }

    ::MqContextC *ctx_;
    bool lib_owned_ = false;
};

/// A context's call failed: its error, read from the object only now (the
/// call may have deleted the C context: then that is the error).
[[noreturn]] MQLINK_COLD inline void raise_ctx(const ContextCore &c) { raise_ctx(c.Ptr()); }

inline MkErrorE check_ctx(const ContextCore &c, MkErrorE rc)
{
    if (rc == MK_ERROR)
        raise_ctx(c);
    return rc;
}

template <class T>
MqCallbackF method_callback(void (T::*fn)())
{
    return [fn](MqContextC &c) { (static_cast<T &>(c).*fn)(); };
}

/// Each new server instance is a new T (made by the factory) whose setup is
/// the same member function.
template <class T>
void set_server_setup(::MqContextC *ctx, MqCallbackF setup);

} // namespace detail

/// Members of MqContextC that are templates or overloads of generated ones.
#define MQLINK_CONTEXT_MEMBERS(C)                                                   \
    /** Register a member function of the user's class as the service. */          \
    template <class T>                                                              \
    void ServiceCreate(MkStringR token, void (T::*fn)())                            \
    {                                                                               \
        detail::service_create(Ptr(), token, static_cast<T *>(this), fn);           \
    }                                                                               \
    /** Every new server instance is a new T whose setup member fn runs. */         \
    template <class T>                                                              \
    void ConfigSetServerSetup(void (T::*fn)())                                      \
    {                                                                               \
        detail::set_server_setup<T>(Ptr(), detail::method_callback<T>(fn));         \
    }                                                                               \
    /** Every new server instance is a new C on which setup runs. */                \
    void ConfigSetServerSetup(MqCallbackF setup)                                    \
    {                                                                               \
        detail::set_server_setup<C>(Ptr(), std::move(setup));                       \
    }

} // namespace mqlink

#endif // MQLINK_RUNTIME_HH
