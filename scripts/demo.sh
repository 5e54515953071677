#!/usr/bin/env bash
# The main job on the embedded default (the .maple/ file store), in a scratch git repository:
# a reviewer leaves comments, the agent's side lists what is open.
set -euo pipefail
scratch=$(mktemp -d "${TMPDIR:-/tmp}/maple-demo.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
unset MAPLE_STORE GITHUB_TOKEN MAPLE_GITHUB_OWNER MAPLE_GITHUB_REPO MAPLE_URL MAPLE_GATE_TOKEN
cd "$scratch"
git init -q -b feat/checkout-flow
git -c user.name=demo -c user.email=demo@example.com commit -q --allow-empty -m "start"
echo "scratch repository: $scratch (branch feat/checkout-flow)"
echo
echo "\$ maple comments add --body 'The Pay button overlaps the total at 375px.'"
maple comments add --body "The Pay button overlaps the total at 375px."
echo "\$ maple comments add --body 'Use the brand green for the success banner.'"
maple comments add --body "Use the brand green for the success banner."
echo
echo "\$ maple comments list"
maple comments list
echo
echo "\$ maple comments list --status open --json"
maple comments list --status open --json
echo
echo "stored in: .maple/feat-checkout-flow/comments.json"
