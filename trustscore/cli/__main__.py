import sys

from trustscore.cli._main import main

sys.exit(main())
