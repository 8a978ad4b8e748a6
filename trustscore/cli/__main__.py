import sys

from trustscore.cli.main import main

sys.exit(main())
