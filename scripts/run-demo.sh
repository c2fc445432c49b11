#!/usr/bin/env bash
# Set everything up, then run the main job: act, extract and observe on a bundled example page
# with the model you configured (see README "Configure a model"). With no model configured it
# prints what to set and what the model would have been sent.
set -euo pipefail
. "$(dirname "$0")/setup.sh"
python -m stagehand_py demo "$@"
