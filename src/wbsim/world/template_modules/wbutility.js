// wbsim's wbutility template module: checks, messages and conversions.
(function (load) {
  function isScalar(s) {
    return typeof s === 'number';
  }
  // As in Webots, a vector, rotation or matrix is any object that has the named keys (extra keys and
  // non-numeric values are accepted: Webots' key-count test never applies to objects).
  function hasKeys(o, keys) {
    if (o === null || typeof o !== 'object')
      return false;
    return keys.every((k) => Object.prototype.hasOwnProperty.call(o, k));
  }
  function isVector2(v) {
    return hasKeys(v, ['x', 'y']);
  }
  function isVector3(v) {
    return hasKeys(v, ['x', 'y', 'z']);
  }
  function isAxisAngle(r) {
    return hasKeys(r, ['x', 'y', 'z', 'a']);
  }
  function isQuaternion(q) {
    return hasKeys(q, ['w', 'x', 'y', 'z']);
  }
  function isMatrix3(m) {
    return hasKeys(m, ['0', '1', '2', '3', '4', '5', '6', '7', '8']);
  }
  function isArrayOfPoints(array, dim) {
    if (!Array.isArray(array))
      return false;
    if (dim !== 2 && dim !== 3) {
      error('The second parameter of wbutility.isArrayOfPoints can only be 2 or 3.');
      return false;
    }
    return array.every(dim === 2 ? isVector2 : isVector3);
  }
  // Messages go to the PROTO's output streams, which wbsim reports as located warnings (errors) or drops (info).
  function error(message) {
    console.error(message);
  }
  function info(message) {
    console.log(message);
  }
  function assert(statement, message) {
    if (!statement)
      error(message);
  }
  function deepCopy(original) {
    return JSON.parse(JSON.stringify(original));
  }
  function degreesToRadians(angle) {
    return angle * Math.PI / 180.0;
  }
  function radiansToDegrees(angle) {
    return angle * 180.0 / Math.PI;
  }
  return {
    assert, error, info, deepCopy, degreesToRadians, radiansToDegrees, isScalar, isVector2, isVector3,
    isAxisAngle, isQuaternion, isMatrix3, isArrayOfPoints
  };
})
