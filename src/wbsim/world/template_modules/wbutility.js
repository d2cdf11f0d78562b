// wbsim's wbutility template module: checks, messages and conversions.
(function (load) {
  function isScalar(s) {
    return typeof s === 'number';
  }
  function hasNumbers(o, keys) {
    if (o === null || typeof o !== 'object' || Object.keys(o).length !== keys.length)
      return false;
    return keys.every((k) => typeof o[k] === 'number');
  }
  function isVector2(v) {
    return hasNumbers(v, ['x', 'y']);
  }
  function isVector3(v) {
    return hasNumbers(v, ['x', 'y', 'z']);
  }
  function isAxisAngle(r) {
    return hasNumbers(r, ['x', 'y', 'z', 'a']);
  }
  function isQuaternion(q) {
    return hasNumbers(q, ['w', 'x', 'y', 'z']);
  }
  function isMatrix3(m) {
    return hasNumbers(m, ['0', '1', '2', '3', '4', '5', '6', '7', '8']);
  }
  function isArrayOfPoints(array, dim) {
    if (!Array.isArray(array))
      return false;
    const check = dim === 2 ? isVector2 : dim === 3 ? isVector3 : null;
    return check !== null && array.every(check);
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
