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
    /// Store a copy of the bytes.
    void SetBIN(MkBinaryR v) {
        detail::check_kernel(::MkBufferSetBIN(Ptr(), v.data, v.size));
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
    /// The value at index i, borrowed until the list changes.
    /// Returns a view, valid while the C buffer is; Dup() or an MkBufferC keeps a copy.
    MkBufferR IndexGet(MK_I32 i) {
        auto r = ::MkBufferListIndexGet(Ptr(), i);
        if (!r) detail::check_kernel(MK_ERROR);
        return MkBufferR(r);
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
    /// Append an I8.
    void SendI8(MK_I8 v) {
        detail::check_ctx(*this, ::MqSendI8(Ptr(), v));
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
