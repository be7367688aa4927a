// mqlink_context.hh — the parts of the C++ runtime that need the complete
// MqContextC: calls from the library into C++ and the instance factory.
// Included at the end of mqlink.hh.
#ifndef MQLINK_CONTEXT_HH
#define MQLINK_CONTEXT_HH

#include <cstdio>

namespace mqlink {
namespace detail {

/// The object of ctx; a context the library made without our factory gets a
/// library-owned MqContextC.
inline MqContextC *context_of(::MqContextC *ctx)
{
    if (!ctx)
        return nullptr;
    if (void *u = MqContextGetUserData(ctx))
        return static_cast<MqContextC *>(static_cast<ContextCore *>(u));
    return new MqContextC(adopt_t{}, ctx);
}

/// Called from a callback's catch (...): the exception becomes ctx's error, so
/// a service's caller receives its text.  Out of line, so a callback that does
/// not throw pays nothing for this.
MQLINK_COLD inline void fail(::MqContextC *ctx, Scope scope)
{
    std::string text = "unknown C++ exception";
    MK_I32 code = MK_ERR_GENERIC;
    try {
        throw;
    } catch (const MkExceptionC &e) {
        text = e.text();
        code = e.code();
    } catch (const std::exception &e) {
        text = e.what();
    } catch (...) {
    }
    if (scope == Scope::once) // nobody to hand a call callback's error to
        std::fprintf(stderr, "mqlink: exception in a callback: %s\n", text.c_str());
    else
        MqErrorSet(ctx, code, "%s", text.c_str());
}

inline MkErrorE cb_call(::MqContextC *ctx, void *data)
{
    Callback *cb = static_cast<Callback *>(data);
    try {
        cb->fn(*context_of(ctx));
        return MK_OK;
    } catch (...) {
        fail(ctx, cb->scope);
    }
    return MK_ERROR;
}

template <class T>
::MqContextC *factory(::MqContextC *tmpl, void *)
{
    try {
        T *inst = new T();
        inst->SetLibraryOwned();
        return inst->Ptr();
    } catch (const std::exception &e) {
        MqErrorSet(tmpl, MK_ERR_GENERIC, "factory: %s", e.what());
    }
    return nullptr;
}

template <class T>
void set_server_setup(::MqContextC *ctx, MqCallbackF setup)
{
    CallbackHold hold(std::move(setup), Scope::notified);
    MqConfigSetServerSetup(ctx, cb_call, hold.get(), cb_free);
    hold.taken();
    MqConfigSetFactory(ctx, factory<T>, nullptr, nullptr);
}

} // namespace detail
} // namespace mqlink

#endif // MQLINK_CONTEXT_HH
