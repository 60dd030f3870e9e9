// NVRTC calls (nvrtc.h of CUDA 13.0). NVRTC is linked (libnvrtc), not the driver: this file runs
// on machines without a GPU.
#include "jit/nvrtc_compile.hpp"

#include <chrono>

#include <nvrtc.h>

namespace tilegemm::jit {

std::vector<std::string> compile_options() {
  // -arch=sm_90a: a real architecture, so NVRTC runs ptxas and nvrtcGetCUBIN has SASS (wgmma and
  //   setmaxnreg exist only in the "a" variant). -std=c++20: the production kernel takes its
  //   Config as a class-type template parameter (C++20); no measurable time difference to c++17
  //   (docs/JIT.md). -default-device: helpers need no __device__. -minimal: leaves out the texture,
  //   surface and device-runtime declarations GEMM kernels do not use; ~20% less time on the probe
  //   kernel (docs/JIT.md). -lineinfo: source lines for profilers; no effect on the SASS.
  return {"-arch=sm_90a", "-std=c++20", "-default-device", "-minimal", "-lineinfo"};
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

namespace {

// Owns one nvrtcProgram.
struct Program {
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle != nullptr) nvrtcDestroyProgram(&handle);
  }
};

std::string program_log(nvrtcProgram prog) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);  // the size counts the terminating NUL
  return log;
}

Status nvrtc_failure(std::string_view label, const char* call, nvrtcResult r, const std::string& log) {
  std::string msg = "kernel_source '";
  msg += label;
  msg += "': ";
  msg += call;
  msg += " failed: ";
  msg += nvrtcGetErrorString(r);
  if (!log.empty()) {
    msg += "\nNVRTC log:\n";
    msg += log;
  }
  return Status{ErrorCode::cuda_error, "kernel_source", std::move(msg)};
}

}  // namespace

Status compile_to_cubin(std::string_view source, std::string_view program_name, std::string_view label,
                        const HeaderSet& headers, std::span<const std::string> options, CompileOutput* out) {
  const auto start = std::chrono::steady_clock::now();
  *out = CompileOutput{};
  std::vector<const char*> texts, names;
  std::vector<std::string> name_storage;  // NVRTC wants NUL-terminated names and texts
  std::vector<std::string> text_storage;
  name_storage.reserve(headers.headers.size());
  text_storage.reserve(headers.headers.size());
  for (const EmbeddedHeader& h : headers.headers) {
    name_storage.emplace_back(h.name);
    text_storage.emplace_back(h.text);
    names.push_back(name_storage.back().c_str());
    texts.push_back(text_storage.back().c_str());
  }
  const std::string src(source);
  const std::string prog_name(program_name);
  std::vector<const char*> opts;
  for (const std::string& o : options) opts.push_back(o.c_str());

  Program prog;
  nvrtcResult r = nvrtcCreateProgram(&prog.handle, src.c_str(), prog_name.c_str(), static_cast<int>(texts.size()),
                                     texts.data(), names.data());
  if (r != NVRTC_SUCCESS) return nvrtc_failure(label, "nvrtcCreateProgram", r, {});
  r = nvrtcCompileProgram(prog.handle, static_cast<int>(opts.size()), opts.data());
  out->log = program_log(prog.handle);
  if (r != NVRTC_SUCCESS) return nvrtc_failure(label, "nvrtcCompileProgram", r, out->log);
  size_t size = 0;
  r = nvrtcGetCUBINSize(prog.handle, &size);
  if (r == NVRTC_SUCCESS && size == 0)
    return Status{ErrorCode::invalid_argument, "options",
                  "kernel_source '" + std::string(label) +
                      "': NVRTC produced no cubin: the options must name a real architecture "
                      "(-arch=sm_XX, not compute_XX)"};
  if (r != NVRTC_SUCCESS) return nvrtc_failure(label, "nvrtcGetCUBINSize", r, out->log);
  out->cubin.resize(size);
  r = nvrtcGetCUBIN(prog.handle, reinterpret_cast<char*>(out->cubin.data()));
  if (r != NVRTC_SUCCESS) return nvrtc_failure(label, "nvrtcGetCUBIN", r, out->log);
  out->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::success();
}

}  // namespace tilegemm::jit
