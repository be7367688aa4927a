// generated from wrappers/gen/golden/sample.api by wrappers/gen/mqgen.py — do not edit
// sample: C++ binding (header-only; runtime in mqlink_runtime.hh).
#ifndef MQLINK_HH
#define MQLINK_HH

#include <mqlink.h>

#include "mqlink_runtime.hh"

namespace mqlink {

constexpr int kMQ_TIMEOUT_DEFAULT = MQ_TIMEOUT_DEFAULT; // use the context's --timeout

/// The name of an item type.
inline std::string MkTypeName(MkTypeE type) {
    auto r = ::MkTypeName(type);
    return detail::str(r);
}
/// The process-wide log level.
inline MK_I32 MkLogGetLevel() {
    auto r = ::MkLogGetLevel();
    return r;
}
/// An I8.
inline MK_I8 SampleRetI8() {
    auto r = ::SampleRetI8();
    return r;
}
/// An I16.
inline MK_I16 SampleRetI16() {
    auto r = ::SampleRetI16();
    return r;
}
/// A FLT.
inline MK_FLT SampleRetFLT() {
    auto r = ::SampleRetFLT();
    return r;
}
/// A DBL.
inline MK_DBL SampleRetDBL() {
    auto r = ::SampleRetDBL();
    return r;
}
/// A TYPE through an out parameter.
inline MkTypeE SampleOutTYPE() {
    MkTypeE t{};
    detail::check_kernel(::SampleOutTYPE(&t));
    return t;
}
/// A SIZE through an out parameter.
inline size_t SampleOutSIZE() {
    size_t n{};
    detail::check_kernel(::SampleOutSIZE(&n));
    return n;
}

class MkBufferR;

/// One typed value.
class MkBufferC : public detail::Handle<MkBufferC, ::MkBufferC, ::MkBufferCreate, ::MkBufferDelete> {
  public:
    using Handle::Handle;
    MkBufferC() = default;
    /// An owned copy of a borrowed buffer (MkBufferDup).
    MkBufferC(const MkBufferR &v);
    /// Replace this buffer by an owned copy of a borrowed one.
    MkBufferC &operator=(const MkBufferR &v);
    /// Create an empty buffer.
    static MkBufferC Create() {
        return MkBufferC::Adopt(::MkBufferCreate(), true);
    }
    /// Free the buffer.
    void Delete() {
        Release();
    }
    /// A new buffer holding a copy of this buffer's value.
    MkBufferC Dup() {
        return MkBufferC::Adopt(::MkBufferDup(Ptr()), true);
    }
    /// The type of the value held.
    MkTypeE GetType() {
        auto r = ::MkBufferGetType(Ptr());
        return r;
    }
    /// Store a FLT.
    void SetFLT(MK_FLT v) {
        ::MkBufferSetFLT(Ptr(), v);
    }
    /// Store a copy of the bytes.
    void SetBIN(MkBinaryR v) {
        detail::check_kernel(::MkBufferSetBIN(Ptr(), v.data, v.size));
    }
    /// Copy src's value into this buffer.
    void Copy(const MkBufferC & src) {
        detail::check_kernel(::MkBufferCopy(Ptr(), src.Ptr()));
    }
    /// The value as I8.
    MK_I8 GetI8() {
        MK_I8 v{};
        detail::check_kernel(::MkBufferGetI8(Ptr(), &v));
        return v;
    }
    /// The value as text.
    std::string GetSTR() {
        const char *v = nullptr;
        detail::check_kernel(::MkBufferGetSTR(Ptr(), &v));
        return detail::str(v);
    }
};

/// A borrowed MkBufferC, as ReadBUF and IndexGet return it: no allocation and
/// no copy.  It names the C object's own buffer and is valid only as long as
/// that is (until the next ReadBUF on the same object, or until the list
/// changes); Dup(), or keeping it as an MkBufferC (`MkBufferC keep =
/// ctx.ReadBUF();`), makes an owned copy.  Copying the view copies the name.
class MkBufferR : public MkBufferC {
  public:
    explicit MkBufferR(::MkBufferC *p) : MkBufferC(detail::adopt_t{}, p, false) {}
    MkBufferR(const MkBufferR &o) : MkBufferR(o.Ptr()) {}
    MkBufferR &operator=(const MkBufferR &o)
    {
        // an rvalue MkBufferC: the move assignment, not the copying one
        static_cast<MkBufferC &>(*this) = MkBufferC(detail::adopt_t{}, o.Ptr(), false);
        return *this;
    }
};

inline MkBufferC::MkBufferC(const MkBufferR &v) : MkBufferC(Adopt(::MkBufferDup(v.Ptr()))) {}
inline MkBufferC &MkBufferC::operator=(const MkBufferR &v)
{
    return *this = Adopt(::MkBufferDup(v.Ptr()));
}

/// An array of typed values.
class MkBufferListC : public detail::Handle<MkBufferListC, ::MkBufferListC, ::MkBufferListCreate, ::MkBufferListDelete> {
  public:
    using Handle::Handle;
    /// Create an empty list.
    static MkBufferListC Create() {
        return MkBufferListC::Adopt(::MkBufferListCreate(), true);
    }
    /// The thread's list called name.
    static MkBufferListC CreateTLS(MkStringR name) {
        return MkBufferListC::Adopt(::MkBufferListCreateTLS(name.c_str()), false);
    }
    /// Number of values.
    MK_I32 Size() {
        auto r = ::MkBufferListSize(Ptr());
        return r;
    }
    /// The value at index i, borrowed until the list changes.
    /// Returns a view, valid while the C buffer is; Dup() or an MkBufferC keeps a copy.
    MkBufferR IndexGet(MK_I32 i) {
        auto r = ::MkBufferListIndexGet(Ptr(), i);
        if (!r) detail::check_kernel(MK_ERROR);
        return MkBufferR(r);
    }
};

/// Typed items, encoded.
class MkBufferStreamC : public detail::Handle<MkBufferStreamC, ::MkBufferStreamC, ::MkBufferStreamCreate, ::MkBufferStreamDelete> {
  public:
    using Handle::Handle;
    /// Create an empty stream.
    static MkBufferStreamC Create() {
        return MkBufferStreamC::Adopt(::MkBufferStreamCreate(), true);
    }
    /// Encoded size in bytes.
    size_t Size() {
        auto r = ::MkBufferStreamSize(Ptr());
        return r;
    }
    /// The next item as FLT.
    MK_FLT ReadFLT() {
        MK_FLT v{};
        detail::check_kernel(::MkBufferStreamReadFLT(Ptr(), &v));
        return v;
    }
    /// The next item as a buffer, borrowed until the next call.
    /// Returns a view, valid while the C buffer is; Dup() or an MkBufferC keeps a copy.
    MkBufferR ReadBUF() {
        ::MkBufferC *v = nullptr;
        detail::check_kernel(::MkBufferStreamReadBUF(Ptr(), &v));
        return MkBufferR(v);
    }
    /// True when an item is left.
    bool ReadItemExists() {
        auto r = ::MkBufferStreamReadItemExists(Ptr());
        return (r) != 0;
    }
    /// Move the read position back to the first item.
    void PosToStart() {
        ::MkBufferStreamPosToStart(Ptr());
    }
};

/// Typed reads from a "libconfig" file.
class MqConfigFileC : public detail::Handle<MqConfigFileC, ::MqConfigFileC, ::MqConfigFileCreate, ::MqConfigFileDelete> {
  public:
    using Handle::Handle;
    /// Create an empty configuration.
    static MqConfigFileC Create() {
        return MqConfigFileC::Adopt(::MqConfigFileCreate(), true);
    }
    /// Read and parse file.
    void Read(MkStringR file) {
        detail::check_kernel(::MqConfigFileRead(Ptr(), file.c_str()));
    }
    /// The string at path, or def.
    std::string GetSTR(MkStringR path, MkStringR def = "") {
        const char *v = nullptr;
        detail::check_kernel(::MqConfigFileGetSTR(Ptr(), path.c_str(), def.c_str(), &v));
        return detail::str(v);
    }
    /// The boolean at path, or def.
    bool GetBOL(MkStringR path, bool def = false) {
        MK_BOL v{};
        detail::check_kernel(::MqConfigFileGetBOL(Ptr(), path.c_str(), def, &v));
        return (v) != 0;
    }
    /// The number at path, or def.
    MK_DBL GetDBL(MkStringR path, MK_DBL def = 0.0) {
        MK_DBL v{};
        detail::check_kernel(::MqConfigFileGetDBL(Ptr(), path.c_str(), def, &v));
        return v;
    }
};

/// One end of a link.
class MqContextC : public detail::ContextCore {
  public:
    using detail::ContextCore::ContextCore;
    MQLINK_CONTEXT_MEMBERS(MqContextC)
    /// Free the context.
    void Delete() {
        Release();
    }
    /// Open the link.
    void LinkCreate(const std::vector<std::string> & argv) {
        detail::Argv argv_v(argv);
        detail::check_ctx(*this, ::MqLinkCreate(Ptr(), argv_v.argc(), argv_v.argv()));
    }
    /// Register a service.
    void ServiceCreate(MkStringR token, MqCallbackF fn) {
        detail::CallbackHold fn_d(std::move(fn), detail::Scope::notified);
        detail::check_ctx(*this, fn_d.taken(::MqServiceCreate(Ptr(), token.c_str(), detail::cb_call, fn_d.get(), detail::cb_free)));
    }
    /// Serve events.
    bool ProcessEvent(MqWaitE wait = MQ_WAIT_NO, MK_I64 timeout_ms = MQ_TIMEOUT_DEFAULT) {
        return detail::check_ctx(*this, ::MqProcessEvent(Ptr(), wait, timeout_ms)) == MK_OK;
    }
    /// The running service's token.
    std::string ServiceGetToken() {
        auto r = ::MqServiceGetToken(Ptr());
        if (!r) return std::string();
        return detail::str(r);
    }
    /// The default timeout in milliseconds.
    MK_I64 ConfigGetTimeout() {
        auto r = ::MqConfigGetTimeout(Ptr());
        return r;
    }
    /// True while the link is up.
    bool LinkIsConnected() {
        auto r = ::MqLinkIsConnected(Ptr());
        return (r) != 0;
    }
    /// Call token; fn runs with the answer.
    void SendEND_AND_CALLBACK(MkStringR token, MqCallbackF fn, MK_I64 timeout_ms = MQ_TIMEOUT_DEFAULT) {
        detail::CallbackHold fn_d(std::move(fn), detail::Scope::once);
        detail::check_ctx(*this, fn_d.taken(::MqSendEND_AND_CALLBACK(Ptr(), token.c_str(), detail::cb_call, fn_d.get(), detail::cb_free, timeout_ms)));
    }
    /// Run fn with re-sent answers.
    void ConfigSetTransactionHandler(MqCallbackF fn) {
        detail::CallbackHold fn_d(std::move(fn), detail::Scope::notified);
        ::MqConfigSetTransactionHandler(Ptr(), detail::cb_call, fn_d.get(), detail::cb_free);
        fn_d.taken();
    }
    /// Persistent calls not yet answered.
    MK_I64 StoragePendingCount() {
        MK_I64 count{};
        detail::check_ctx(*this, ::MqStoragePendingCount(Ptr(), &count));
        return count;
    }
    /// Append an I8.
    void SendI8(MK_I8 v) {
        detail::check_ctx(*this, ::MqSendI8(Ptr(), v));
    }
    /// Append an I16.
    void SendI16(MK_I16 v) {
        detail::check_ctx(*this, ::MqSendI16(Ptr(), v));
    }
    /// Append a buffer's value with its type.
    void SendBUF(const MkBufferC & v) {
        detail::check_ctx(*this, ::MqSendBUF(Ptr(), v.Ptr()));
    }
    /// The next item as I16.
    MK_I16 ReadI16() {
        MK_I16 v{};
        detail::check_ctx(*this, ::MqReadI16(Ptr(), &v));
        return v;
    }
    /// The next item as I32.
    MK_I32 ReadI32() {
        MK_I32 v{};
        detail::check_ctx(*this, ::MqReadI32(Ptr(), &v));
        return v;
    }
    /// The next item as bytes.
    std::vector<uint8_t> ReadBIN() {
        const void *v = nullptr;
        size_t v_size = 0;
        detail::check_ctx(*this, ::MqReadBIN(Ptr(), &v, &v_size));
        return detail::bin(v, v_size);
    }
    /// The next item as a buffer, borrowed until the next ReadBUF.
    /// Returns a view, valid while the C buffer is; Dup() or an MkBufferC keeps a copy.
    MkBufferR ReadBUF() {
        ::MkBufferC *v = nullptr;
        detail::check_ctx(*this, ::MqReadBUF(Ptr(), &v));
        return MkBufferR(v);
    }
    /// True while an item is left.
    bool ReadItemExists() {
        auto r = ::MqReadItemExists(Ptr());
        return (r) != 0;
    }
    /// Move the next item.
    void ProxyItem(MqContextC & to) {
        detail::check_ctx(*this, ::MqProxyItem(Ptr(), to.Ptr()));
    }
    /// The parent.
    MqContextC * LinkGetParent() {
        auto r = ::MqLinkGetParent(Ptr());
        return detail::context_of(r);
    }
    /// Set the error.
    void ErrorSet(MK_I32 code, MkStringR text) {
        ::MqErrorSet(Ptr(), code, "%s", text.c_str());
    }
};

} // namespace mqlink

#include "mqlink_context.hh"

#endif // MQLINK_HH
