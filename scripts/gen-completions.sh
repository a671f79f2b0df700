#!/usr/bin/env bash
# Regenerates the shell completion scripts in completions/ from the clap definition
# (`kubectl gc completion SHELL`). Run it after changing a command, flag or value in src/cli;
# tests/integration/distribution.rs fails until the files are current.
#
#   scripts/gen-completions.sh             # builds the debug binary first
#   KUBECTL_GC=path/to/kubectl-gc scripts/gen-completions.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bin="${KUBECTL_GC:-}"
if [[ -z "$bin" ]]; then
  cargo build --quiet --locked --bin kubectl-gc
  bin=target/debug/kubectl-gc
fi

# shell -> file name (clap_complete's conventional names for a binary called kubectl-gc)
declare -A files=(
  [bash]=kubectl-gc.bash
  [zsh]=_kubectl-gc
  [fish]=kubectl-gc.fish
  [powershell]=_kubectl-gc.ps1
  [elvish]=kubectl-gc.elv
)
for shell in bash zsh fish powershell elvish; do
  "$bin" completion "$shell" > "completions/${files[$shell]}.tmp"
  mv "completions/${files[$shell]}.tmp" "completions/${files[$shell]}"
  echo "completions/${files[$shell]}"
done
