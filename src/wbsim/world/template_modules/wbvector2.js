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
  // The point where segments [p1, p2] and [p3, p4] cross, or null, with Webots' rules: null when the x
  // ranges do not overlap, for a degenerate segment, for two vertical or two horizontal segments, for equal
  // slopes, and when the crossing point of the two lines lies outside the common x range (only x is checked).
  function intersection(p1, p2, p3, p4) {
    if (Math.max(p1.x, p2.x) < Math.min(p3.x, p4.x))
      return null;
    if ((p1.x === p2.x && p1.y === p2.y) || (p3.x === p4.x && p3.y === p4.y))
      return null;
    if ((p1.x === p2.x && p3.x === p4.x) || (p1.y === p2.y && p3.y === p4.y))
      return null;
    let x, y;
    if (p1.x !== p2.x && p3.x !== p4.x) {
      // both as y = slope * x + intercept
      const s1 = (p1.y - p2.y) / (p1.x - p2.x);
      const s2 = (p3.y - p4.y) / (p3.x - p4.x);
      if (s1 === s2)
        return null;
      const c1 = p1.y - s1 * p1.x;
      const c2 = p3.y - s2 * p3.x;
      x = (c2 - c1) / (s1 - s2);
      y = s2 * x + c2;
    } else {
      // one is vertical: both as x = slope * y + intercept
      const s1 = (p1.x - p2.x) / (p1.y - p2.y);
      const s2 = (p3.x - p4.x) / (p3.y - p4.y);
      if (s1 === s2)
        return null;
      const c1 = p1.x - s1 * p1.y;
      const c2 = p3.x - s2 * p3.y;
      y = (c2 - c1) / (s1 - s2);
      x = s2 * y + c2;
    }
    if (x < Math.max(Math.min(p1.x, p2.x), Math.min(p3.x, p4.x)) || x > Math.min(Math.max(p1.x, p2.x), Math.max(p3.x, p4.x)))
      return null;
    return {x: x, y: y};
  }
  return { equal, add, minus, multiply, norm, distance, angle, cross, dot, normalize, intersection };
})
