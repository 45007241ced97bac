#include "strata/core/status.hpp"

namespace strata {

std::string_view status_code_name(StatusCode code) {
  switch (code) {
    case StatusCode::Ok: return "OK";
    case StatusCode::Invalid: return "Invalid";
    case StatusCode::IOError: return "IOError";
    case StatusCode::Corrupt: return "Corrupt";
    case StatusCode::NotFound: return "NotFound";
    case StatusCode::AlreadyExists: return "AlreadyExists";
    case StatusCode::OutOfMemory: return "OutOfMemory";
    case StatusCode::Unsupported: return "Unsupported";
    case StatusCode::InvalidData: return "InvalidData";
    case StatusCode::DeviceError: return "DeviceError";
    case StatusCode::CommError: return "CommError";
    case StatusCode::Cancelled: return "Cancelled";
    case StatusCode::Internal: return "Internal";
  }
  return "Unknown";
}

std::string Status::to_string() const {
  if (ok()) return "OK";
  return str_cat(status_code_name(code_), ": ", message_);
}

Status Status::with_context(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, str_cat(context, ": ", message_));
}

}  // namespace strata
