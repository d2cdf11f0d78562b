// wbsim's wbrandom template module: Webots' seeded pseudo-random numbers.
// The generator is a linear congruential generator modulo 2^24 with multiplier 1140671485 and
// increment 12820163, computed in double precision exactly as Webots does (the product may exceed
// 2^53 and round; keeping the same floating-point expression keeps Webots' sequence). The state starts
// at 0 for every expansion.
(function (load) {
  const MODULUS = 16777216; // 2^24
  let state = 0;
  function seed(s) {
    state = s;
  }
  function advance() {
    state = (1140671485 * state + 12820163) % MODULUS;
    return state;
  }
  // real(): [0, 1]; real(max): [0, max]; real(min, max): [min, max].
  function real(min, max) {
    if (min === undefined) {
      min = 0;
      max = 1;
    } else if (max === undefined) {
      max = min;
      min = 0;
    }
    return min + advance() * (max - min) / (MODULUS - 1);
  }
  // integer(): [0, 2^24 - 1]; integer(max): [1, max] (Webots' code starts at 1 here, unlike its
  // documentation); integer(min, max): [min, max].
  function integer(min, max) {
    if (min === undefined) {
      min = 0;
      max = MODULUS - 1;
    } else if (max === undefined) {
      max = min;
      min = 1;
    }
    return min + advance() % (1 + max - min);
  }
  return { seed, real, integer };
})
