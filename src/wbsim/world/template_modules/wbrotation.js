// wbsim's wbrotation template module: axis-angle {x, y, z, a}, quaternions {w, x, y, z} and 3x3
// matrices {0..8} (row-major).
(function (load) {
  // As Webots' module: the argument is normalised in place first (axis, and angle into [-pi, pi]).
  function toQuaternion(r) {
    normalize(r);
    const s = Math.sin(r.a / 2);
    return {w: Math.cos(r.a / 2), x: r.x * s, y: r.y * s, z: r.z * s};
  }
  // The identity is returned as a zero angle about y, as Webots does below 1e-4 rad.
  function fromQuaternion(q) {
    const a = 2 * Math.acos(Math.max(-1, Math.min(1, q.w)));
    if (a < 0.0001)
      return {x: 0, y: 1, z: 0, a: 0};
    const n = Math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    return {x: q.x / n, y: q.y / n, z: q.z / n, a: a};
  }
  // The axis is used as given (Webots' module does not normalise it here); the products are grouped as
  // Webots groups them, so that the rounding, and the generated text, are the same.
  function toMatrix3(r) {
    const c = Math.cos(r.a), s = Math.sin(r.a), t = 1 - c;
    const xz = r.x * r.z * t, xy = r.x * r.y * t, yz = r.y * r.z * t;
    return {
      0: r.x * r.x * t + c, 1: xy - r.z * s, 2: xz + r.y * s,
      3: xy + r.z * s, 4: r.y * r.y * t + c, 5: yz - r.x * s,
      6: xz - r.y * s, 7: yz + r.x * s, 8: r.z * r.z * t + c
    };
  }
  function fromMatrix3(m) {
    // Through the quaternion (Shepperd's method), stable for every angle.
    const trace = m[0] + m[4] + m[8];
    let q;
    if (trace > 0) {
      const s = 2 * Math.sqrt(trace + 1);
      q = {w: s / 4, x: (m[7] - m[5]) / s, y: (m[2] - m[6]) / s, z: (m[3] - m[1]) / s};
    } else if (m[0] > m[4] && m[0] > m[8]) {
      const s = 2 * Math.sqrt(1 + m[0] - m[4] - m[8]);
      q = {w: (m[7] - m[5]) / s, x: s / 4, y: (m[1] + m[3]) / s, z: (m[2] + m[6]) / s};
    } else if (m[4] > m[8]) {
      const s = 2 * Math.sqrt(1 + m[4] - m[0] - m[8]);
      q = {w: (m[2] - m[6]) / s, x: (m[1] + m[3]) / s, y: s / 4, z: (m[5] + m[7]) / s};
    } else {
      const s = 2 * Math.sqrt(1 + m[8] - m[0] - m[4]);
      q = {w: (m[3] - m[1]) / s, x: (m[2] + m[6]) / s, y: (m[5] + m[7]) / s, z: s / 4};
    }
    return fromQuaternion(q);
  }
  function equal(a, b) {
    return a.x === b.x && a.y === b.y && a.z === b.z && a.a === b.a;
  }
  function isIdentity(r) {
    return r.a === 0;
  }
  function isValid(r) {
    return r.x !== 0 || r.y !== 0 || r.z !== 0;
  }
  // In place, as Webots: a zero axis becomes y, the axis unit length, the angle within [-pi, pi].
  function normalizeAxis(r) {
    if (!isValid(r)) {
      r.x = 0;
      r.y = 1;
      r.z = 0;
    }
    const n = Math.sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    r.x /= n;
    r.y /= n;
    r.z /= n;
  }
  function normalizeAngle(r) {
    while (r.a < -Math.PI)
      r.a += 2 * Math.PI;
    while (r.a > Math.PI)
      r.a -= 2 * Math.PI;
  }
  function normalize(r) {
    normalizeAxis(r);
    normalizeAngle(r);
    return r;
  }
  function multiplyQuaternions(p, q) {
    return {
      w: p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z,
      x: p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y,
      y: p.w * q.y - p.x * q.z + p.y * q.w + p.z * q.x,
      z: p.w * q.z + p.x * q.y - p.y * q.x + p.z * q.w
    };
  }
  // rA applied after rB: the rotation whose matrix is M(rA) * M(rB).
  function combine(rA, rB) {
    return fromQuaternion(multiplyQuaternions(toQuaternion(rA), toQuaternion(rB)));
  }
  function rotateVector3ByMatrix3(m, v) {
    return {
      x: m[0] * v.x + m[1] * v.y + m[2] * v.z,
      y: m[3] * v.x + m[4] * v.y + m[5] * v.z,
      z: m[6] * v.x + m[7] * v.y + m[8] * v.z
    };
  }
  function rotateVector3ByRotation(r, v) {
    return rotateVector3ByMatrix3(toMatrix3(r), v);
  }
  // Through the axis-angle form, as Webots' module (so angles below 1e-4 rad do not rotate).
  function rotateVector3ByQuaternion(q, v) {
    return rotateVector3ByRotation(fromQuaternion(q), v);
  }
  return {
    equal, fromQuaternion, toQuaternion, fromMatrix3, toMatrix3, isIdentity, isValid, normalize, normalizeAxis,
    normalizeAngle, combine, rotateVector3ByMatrix3, rotateVector3ByRotation, rotateVector3ByQuaternion
  };
})
