// Checksums of our own formats (pure, no I/O).
//
// - CRC-32C (Castagnoli, the iSCSI/ext4 polynomial 0x1EDC6F41, reflected, initial and
//   final XOR 0xFFFFFFFF): integrity of the job file's blocks. Check value of
//   "123456789": 0xE3069283.
// - FNV-1a 64: short stable identities (communicators in the job file, hosts in
//   temporary names); not for integrity.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace mpimon {

// CRC-32C of `data`, continuing from `crc` (the CRC of the bytes before; 0 to start).
uint32_t crc32c(std::string_view data, uint32_t crc = 0);

// FNV-1a 64 of `data`, continuing from `hash` (kFnvOffset to start).
inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
uint64_t fnv1a64(std::string_view data, uint64_t hash = kFnvOffset);

// `value` as exactly `digits` lower-case hexadecimal digits.
std::string to_hex(uint64_t value, int digits);

}  // namespace mpimon
