"""wbsim: Webots-format worlds on MuJoCo, headless, with Webots Python controllers."""

from wbsim._version import __version__
from wbsim.errors import WbsimError

__all__ = ["__version__", "WbsimError"]
