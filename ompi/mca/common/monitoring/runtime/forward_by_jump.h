// Forwarding a wrapped call, as the wrapper's last act, to a function of the same
// signature (Open MPI's original, or our slow twin) with the arguments the wrapper
// received, when some of them are on the stack (x86-64 passes six integer arguments in
// registers; the PML's sends and most one-sided operations have seven to twelve).
//
// GCC's sibling call with stack arguments reloads them and stores them back into the
// incoming slots, and keeps them meanwhile in callee-saved registers: on a hot path that
// also makes a call, two to six instructions per saved register. Called through the same
// pointer typed with the six register arguments only, the call is a jump (sibling call)
// that leaves the caller's stack as it was: the callee reads its stack arguments where
// our caller put them. This needs the call to be compiled as a jump: GCC makes a sibling
// call of it whenever it optimises (the callee has no stack arguments, we have no frame
// left); test/codegen checks the built plugins (PmlCodegen.SendWrappersJumpToThePml,
// OscCodegen.DataWrappersJumpToTheirSlowTwin). Without optimisation, under the sanitizers
// and on other processors: the ordinary call with every argument.
//
// Only for arguments of the integer class (pointers, integers): each of the first six
// then travels in a register whatever its type.
#pragma once

#include <type_traits>

#if defined(__x86_64__) && defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__) && !defined(MPIMON_TSAN) && \
    !defined(__SANITIZE_UNDEFINED__)
#define MPIMON_FORWARD_BY_JUMP 1
#else
#define MPIMON_FORWARD_BY_JUMP 0
#endif

namespace mpimon {

template <typename T>
inline constexpr bool integer_class = std::is_integral_v<T> || std::is_pointer_v<T> || std::is_enum_v<T>;

// fn(a1, ..., a6, stack...), as a jump that leaves `stack...` where they are when
// MPIMON_FORWARD_BY_JUMP. Must be the wrapper's `return` expression, with the wrapper's
// own arguments, in their order.
template <typename Fn, typename A1, typename A2, typename A3, typename A4, typename A5, typename A6, typename... Stack>
[[gnu::always_inline]] inline int forward_by_jump(Fn fn, A1 a1, A2 a2, A3 a3, A4 a4, A5 a5, A6 a6, Stack... stack) {
  static_assert((integer_class<A1> && integer_class<A2> && integer_class<A3> && integer_class<A4> &&
                 integer_class<A5> && integer_class<A6>),
                "only integer-class arguments travel in the six integer registers");
#if MPIMON_FORWARD_BY_JUMP
  ((void)stack, ...);
  using registers_fn = int (*)(A1, A2, A3, A4, A5, A6);
  return reinterpret_cast<registers_fn>(reinterpret_cast<void (*)()>(fn))(a1, a2, a3, a4, a5, a6);
#else
  return fn(a1, a2, a3, a4, a5, a6, stack...);
#endif
}

}  // namespace mpimon
