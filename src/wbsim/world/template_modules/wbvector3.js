// wbsim's wbvector3 template module: 3D vectors as {x, y, z}.
(function (load) {
  const equal = (a, b) => a.x === b.x && a.y === b.y && a.z === b.z;
  const add = (a, b) => ({x: a.x + b.x, y: a.y + b.y, z: a.z + b.z});
  const minus = (a, b) => ({x: a.x - b.x, y: a.y - b.y, z: a.z - b.z});
  const multiply = (v, s) => ({x: v.x * s, y: v.y * s, z: v.z * s});
  const norm = (v) => Math.sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
  const distance = (a, b) => norm(minus(a, b));
  const dot = (a, b) => a.x * b.x + a.y * b.y + a.z * b.z;
  const cross = (a, b) => ({x: a.y * b.z - a.z * b.y, y: a.z * b.x - a.x * b.z, z: a.x * b.y - a.y * b.x});
  function normalize(v) {
    const n = norm(v);
    if (n === 0) {
      console.error('The norm cannot be zero when normalizing.');
      return null;
    }
    return {x: v.x / n, y: v.y / n, z: v.z / n};
  }
  return { equal, add, minus, multiply, norm, distance, cross, dot, normalize };
})
