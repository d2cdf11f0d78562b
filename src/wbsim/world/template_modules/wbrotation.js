// wbsim's wbrotation template module: axis-angle {x, y, z, a}, quaternions {w, x, y, z} and 3x3
// matrices {0..8} (row-major).
(function (load) {
  function toQuaternion(r) {
    const n = Math.sqrt(r.x * r.x + r.y * r.y + r.z * r.z);
    if (n === 0)
      return {w: 1, x: 0, y: 0, z: 0};
    const s = Math.sin(r.a / 2) / n;
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
  function toMatrix3(r) {
    const n = Math.sqrt(r.x * r.x + r.y * r.y + r.z * r.z) || 1;
    const x = r.x / n, y = r.y / n, z = r.z / n;
    const c = Math.cos(r.a), s = Math.sin(r.a), t = 1 - c;
    return {
      0: t * x * x + c, 1: t * x * y - s * z, 2: t * x * z + s * y,
      3: t * x * y + s * z, 4: t * y * y + c, 5: t * y * z - s * x,
      6: t * x * z - s * y, 7: t * y * z + s * x, 8: t * z * z + c
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
  function rotateVector3ByQuaternion(q, v) {
    const p = multiplyQuaternions(multiplyQuaternions(q, {w: 0, x: v.x, y: v.y, z: v.z}),
                                  {w: q.w, x: -q.x, y: -q.y, z: -q.z});
    return {x: p.x, y: p.y, z: p.z};
  }
  return {
    equal, fromQuaternion, toQuaternion, fromMatrix3, toMatrix3, isIdentity, isValid, normalize, normalizeAxis,
    normalizeAngle, combine, rotateVector3ByMatrix3, rotateVector3ByRotation, rotateVector3ByQuaternion
  };
})
