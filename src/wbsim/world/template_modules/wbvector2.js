// wbsim's wbvector2 template module: 2D vectors as {x, y}.
(function (load) {
  const equal = (a, b) => a.x === b.x && a.y === b.y;
  const add = (a, b) => ({x: a.x + b.x, y: a.y + b.y});
  const minus = (a, b) => ({x: a.x - b.x, y: a.y - b.y});
  const multiply = (v, s) => ({x: v.x * s, y: v.y * s});
  const norm = (v) => Math.sqrt(v.x * v.x + v.y * v.y);
  const distance = (a, b) => norm(minus(a, b));
  const dot = (a, b) => a.x * b.x + a.y * b.y;
  const cross = (a, b) => a.x * b.y - a.y * b.x;
  // The direction of a - b, in radians from the x axis (Webots' definition).
  const angle = (a, b) => Math.atan2(a.y - b.y, a.x - b.x);
  function normalize(v) {
    const n = norm(v);
    if (n === 0) {
      console.error('The norm cannot be zero when normalizing.');
      return null;
    }
    return {x: v.x / n, y: v.y / n};
  }
  // The point where segments [p1, p2] and [p3, p4] cross, or null.
  function intersection(p1, p2, p3, p4) {
    const d = (p4.y - p3.y) * (p2.x - p1.x) - (p4.x - p3.x) * (p2.y - p1.y);
    if (d === 0)
      return null;
    const ua = ((p4.x - p3.x) * (p1.y - p3.y) - (p4.y - p3.y) * (p1.x - p3.x)) / d;
    const ub = ((p2.x - p1.x) * (p1.y - p3.y) - (p2.y - p1.y) * (p1.x - p3.x)) / d;
    if (ua < 0 || ua > 1 || ub < 0 || ub > 1)
      return null;
    return {x: p1.x + ua * (p2.x - p1.x), y: p1.y + ua * (p2.y - p1.y)};
  }
  return { equal, add, minus, multiply, norm, distance, angle, cross, dot, normalize, intersection };
})
