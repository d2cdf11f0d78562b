// wbsim's wbmath template module: angle unit conversions.
(function (load) {
  function degreesToRadians(angle) {
    return angle * Math.PI / 180.0;
  }
  function radiansToDegrees(angle) {
    return angle * 180.0 / Math.PI;
  }
  return { degreesToRadians, radiansToDegrees };
})
