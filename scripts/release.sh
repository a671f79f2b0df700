#!/usr/bin/env bash
# Builds the release archives named in krew-manifest.yaml and writes a copy of the manifest with
# their sha256 filled in.
#
#   scripts/release.sh                   # every manifest target this machine can build
#   scripts/release.sh --host            # ... plus the host target (a local test archive)
#   scripts/release.sh --binary PATH --target TRIPLE   # package a binary built elsewhere
#
# Options:
#   --out DIR        where archives, SHA256SUMS and krew-manifest.yaml go (default target/dist)
#   --in-place       also write the sha256 values into ./krew-manifest.yaml
#   --binary PATH    do not build: package PATH as the kubectl-gc binary of --target
#   --target TRIPLE  the target of --binary (or: build only this target)
#   --host           also build the host target, even if the manifest does not name it
#
# Archives: kubectl-gc_v<version>_<target>.tar.gz (.zip for Windows) holding kubectl-gc
# (kubectl-gc.exe), the completion shim kubectl_complete-gc (kubectl_complete-gc.cmd on
# Windows), LICENSE and README.md: exactly the `files` of the manifest's platform entries.
# Archives already in --out (for example copied from a macOS or Windows build) are included in
# SHA256SUMS and in the manifest too, so a release can be assembled from several machines.
#
# A target is built when its standard library is installed (`rustup target add TRIPLE`) and
# its linker works; otherwise the command that would build it is printed and it is skipped.
# Needs bash >= 4, tar, zip (Windows archives) and sha256sum or shasum.
set -euo pipefail
cd "$(dirname "$0")/.."

out=target/dist
in_place=false
binary=""
only_target=""
with_host=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --in-place) in_place=true; shift ;;
    --binary) binary="$2"; shift 2 ;;
    --target) only_target="$2"; shift 2 ;;
    --host) with_host=true; shift ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "release.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [[ -n "$binary" && -z "$only_target" ]]; then
  echo "release.sh: --binary needs --target TRIPLE" >&2
  exit 2
fi

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
manifest_version=$(sed -n 's/^  version: \(.*\)$/\1/p' krew-manifest.yaml | head -n1)
if [[ "$manifest_version" != "v$version" ]]; then
  echo "release.sh: krew-manifest.yaml has version $manifest_version but Cargo.toml has $version;" >&2
  echo "  update spec.version, the uris and the caveats path: sed -i 's/v$manifest_version/v$version/g; s/${manifest_version}/v$version/g' krew-manifest.yaml" >&2
  exit 1
fi
host=$(rustc -vV | sed -n 's/^host: //p')

# The targets the manifest ships, from its uris (…/kubectl-gc_v<ver>_<target>.<ext>).
mapfile -t manifest_targets < <(sed -n -E "s#^ *uri: .*/kubectl-gc_v${version}_(.*)\.(tar\.gz|zip)\$#\1#p" krew-manifest.yaml)
if [[ -n "$only_target" ]]; then
  targets=("$only_target")
else
  targets=("${manifest_targets[@]}")
  if $with_host && [[ ! " ${targets[*]} " == *" $host "* ]]; then
    targets+=("$host")
  fi
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage_root=$(mktemp -d)
trap 'rm -rf "$stage_root"' EXIT

# Reproducible tarballs where GNU tar is available.
tar_flags=()
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
  epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
  tar_flags=(--sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch")
fi

has_std() { # the target's standard library is installed
  local dir
  dir=$(rustc --print target-libdir --target "$1" 2>/dev/null) || return 1
  compgen -G "$dir/libstd-*" >/dev/null
}

built=()
skipped=()
for t in "${targets[@]}"; do
  exe=kubectl-gc
  shim=completions/kubectl_complete-gc
  ext=tar.gz
  if [[ "$t" == *windows* ]]; then
    exe=kubectl-gc.exe
    shim=completions/kubectl_complete-gc.cmd
    ext=zip
  fi
  if [[ -n "$binary" ]]; then
    bin="$binary"
  elif [[ "$t" == "$host" ]]; then
    echo "+ cargo build --release --locked"
    cargo build --release --locked --bin kubectl-gc
    bin=target/release/kubectl-gc
  elif has_std "$t"; then
    echo "+ cargo build --release --locked --target $t"
    if ! cargo build --release --locked --bin kubectl-gc --target "$t"; then
      echo "skip $t: the build failed (a cross linker is usually needed)" >&2
      skipped+=("$t")
      continue
    fi
    bin="target/$t/release/$exe"
  else
    echo "skip $t: its standard library is not installed here; on a machine that can build it run:"
    echo "    rustup target add $t && cargo build --release --locked --target $t"
    echo "    scripts/release.sh --binary target/$t/release/$exe --target $t --out $out"
    skipped+=("$t")
    continue
  fi
  stage="$stage_root/$t"
  mkdir -p "$stage"
  cp "$bin" "$stage/$exe"
  chmod 0755 "$stage/$exe"
  cp "$shim" "$stage/"
  chmod 0755 "$stage/$(basename "$shim")"
  cp LICENSE README.md "$stage/"
  archive="kubectl-gc_v${version}_${t}.${ext}"
  rm -f "$out/$archive"
  if [[ "$ext" == zip ]]; then
    (cd "$stage" && zip -q -X "$out/$archive" ./*)
  else
    tar "${tar_flags[@]}" -czf "$out/$archive" -C "$stage" .
  fi
  built+=("$archive")
  if [[ ! " ${manifest_targets[*]} " == *" $t "* ]]; then
    echo "note: $archive is not named in krew-manifest.yaml (a local test archive)"
  fi
done

# Checksums of every archive of this version in $out, and the manifest copy.
(
  cd "$out"
  shopt -s nullglob
  files=(kubectl-gc_v"${version}"_*.tar.gz kubectl-gc_v"${version}"_*.zip)
  if [[ ${#files[@]} -gt 0 ]]; then
    if command -v sha256sum >/dev/null; then
      sha256sum "${files[@]}" > SHA256SUMS
    else
      shasum -a 256 "${files[@]}" > SHA256SUMS
    fi
  else
    : > SHA256SUMS
  fi
)
awk -v sums="$out/SHA256SUMS" '
  BEGIN { while ((getline line < sums) > 0) { split(line, f, "  "); sha[f[2]] = f[1] } }
  /^ *uri: / { n = split($2, parts, "/"); archive = parts[n] }
  /^ *sha256: / && (archive in sha) { sub(/"[^"]*"/, "\"" sha[archive] "\"") }
  { print }
' krew-manifest.yaml > "$out/krew-manifest.yaml"
if $in_place; then
  cp "$out/krew-manifest.yaml" krew-manifest.yaml
fi

echo
echo "built:   ${built[*]:-none}"
echo "skipped: ${skipped[*]:-none}"
echo "wrote:   $out/SHA256SUMS $out/krew-manifest.yaml$($in_place && echo ' ./krew-manifest.yaml')"
missing=$(grep -c 'sha256: "0\{64\}"' "$out/krew-manifest.yaml" || true)
if [[ "$missing" -gt 0 ]]; then
  echo "note: $missing platform(s) still have the placeholder sha256: build them elsewhere and rerun with --binary"
fi
