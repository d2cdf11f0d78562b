"""``python -m wbsim``: the same as the ``wbsim`` command."""

import sys

from wbsim.cli.main import main

sys.exit(main())
