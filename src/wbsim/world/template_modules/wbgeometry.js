// wbsim's wbgeometry template module: circles, polygons and cubic B-splines.
(function (load) {
  const wbutility = load('wbutility');
  // div + 1 points (the first repeated at the end) on a circle of `radius` around `center`, starting at
  // angle `shift` and turning counter-clockwise.
  function circle(radius, div, center, shift) {
    wbutility.assert(wbutility.isScalar(radius) && radius > 0, 'wbgeometry.circle: radius must be a positive number.');
    wbutility.assert(wbutility.isScalar(div) && div > 0, 'wbgeometry.circle: div must be a positive number.');
    wbutility.assert(wbutility.isVector2(center), 'wbgeometry.circle: center must be an {x, y} object.');
    wbutility.assert(wbutility.isScalar(shift), 'wbgeometry.circle: shift must be a number.');
    const step = 2 * Math.PI / div;
    const points = [];
    for (let i = 0; i <= div; ++i) {
      const angle = i * step + shift;
      points.push({x: radius * Math.cos(angle) + center.x, y: radius * Math.sin(angle) + center.y});
    }
    return points;
  }
  // Even-odd crossing test. Webots' version compares p.x (not p.y) with the lower end of each edge;
  // wbsim keeps that comparison so that generated geometry is the same.
  function isPoint2InPolygon(p, polygon) {
    const n = polygon.length;
    if (n < 3)
      return false;
    let inside = false;
    let crossing = 0;
    for (let i = 0; i < n; ++i) {
      const a = polygon[i];
      const b = polygon[(i + 1) % n];
      if (p.x > Math.min(a.y, b.y) && p.y <= Math.max(a.y, b.y) && p.x <= Math.max(a.x, b.x)) {
        if (a.y !== b.y)
          crossing = (p.y - a.y) * (b.x - a.x) / (b.y - a.y) + a.x;
        if (a.x === b.x || p.x <= crossing)
          inside = !inside;
      }
    }
    return inside;
  }
  function findClosestPoint2InArray(reference, points) {
    let best = reference;
    let bestDistance = Infinity;
    for (const point of points) {
      const d = Math.hypot(point.x - reference.x, point.y - reference.y);
      if (d < bestDistance) {
        bestDistance = d;
        best = point;
      }
    }
    return best;
  }
  // Sign of the shoelace-like sum over edges (x2 - x1) * (y2 + y1); Webots skips the first edge.
  function isPoint2ArrayClockwise(points) {
    const n = points.length;
    let total = 0;
    for (let i = 1; i < n - 1; ++i)
      total += (points[i + 1].x - points[i].x) * (points[i + 1].y + points[i].y);
    total += (points[0].x - points[n - 1].x) * (points[0].y + points[n - 1].y);
    return total < 0;
  }
  // Uniform cubic B-spline through control points extended by two mirrored points at each end; the
  // input array is extended in place, as in Webots. `first` is the first segment evaluated (Webots
  // starts at 1 in 2D and at 2 in 3D).
  function bSpline(points, subdivision, keys, first) {
    const n = points.length;
    const mirror = (p, q) => {
      const r = {};
      for (const k of keys)
        r[k] = p[k] + (p[k] - q[k]);
      return r;
    };
    points.push(mirror(points[n - 1], points[n - 2]));
    points.push(mirror(points[n], points[n - 1]));
    points.unshift(mirror(points[0], points[1]));
    points.unshift(mirror(points[0], points[1]));
    const spline = [points[2]];
    for (let i = first; i < n + 1; ++i) {
      const c = {};
      for (const k of keys) {
        const p0 = points[i - 1][k], p1 = points[i][k], p2 = points[i + 1][k], p3 = points[i + 2][k];
        c[k] = [(-p0 + 3 * p1 - 3 * p2 + p3) / 6.0, (3 * p0 - 6 * p1 + 3 * p2) / 6.0, (-3 * p0 + 3 * p2) / 6.0,
                (p0 + 4 * p1 + p2) / 6.0];
      }
      for (let j = 1; j <= subdivision; ++j) {
        const t = j / subdivision;
        const point = {};
        for (const k of keys)
          point[k] = (c[k][2] + t * (c[k][1] + t * c[k][0])) * t + c[k][3];
        spline.push(point);
      }
    }
    return spline;
  }
  function bSpline2(points, subdivision) {
    return bSpline(points, subdivision, ['x', 'y'], 1);
  }
  function bSpline3(points, subdivision) {
    return bSpline(points, subdivision, ['x', 'y', 'z'], 2);
  }
  return { circle, isPoint2InPolygon, findClosestPoint2InArray, isPoint2ArrayClockwise, bSpline2, bSpline3 };
})
