// GET /runner/install.sh (spec §5 "Runner registration"): the emulator serves a harmless POSIX sh
// installer. It writes a fake `runner` into a folder the user chooses (default ./service-runner;
// `--dir DIR` or $SERVICE_RUNNER_DIR) and touches nothing else. The fake runner prints what the
// real one would do for `configure --url U --token T`, `run`, `status` and `logs`: it makes no
// network request, runs no job, and never prints or stores the token (only its last 4 characters).

/** Single-quotes a value for sh. */
function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The fake runner itself (installed verbatim: a quoted here-document, nothing expands). */
const FAKE_RUNNER = `#!/bin/sh
# The service emulator's fake self-hosted runner. It prints what the real runner would do and does
# nothing else: no network, no jobs. runner.conf (beside it) keeps the URL and the token's last 4
# characters, never the token; runner.log keeps what it was asked to do.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
conf="$here/runner.conf"
log="$here/runner.log"

usage() {
  cat <<'USAGE'
Usage: runner <command>   (the service emulator's fake runner: it only says what it would do)
  configure --url URL --token TOKEN   register this machine with the service
  run                                 connect and wait for jobs
  status                              show the registration
  logs                                show what the runner was asked to do
USAGE
}
note() { printf '%s %s\\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >> "$log"; }
mask() {
  if [ "\${#1}" -le 8 ]; then printf '****'; else printf '****%s' "$(printf '%s' "$1" | tail -c 4)"; fi
}
setting() { [ -f "$conf" ] && sed -n "s/^$1=//p" "$conf" || true; }
need_conf() {
  if [ ! -f "$conf" ]; then
    echo "runner: not configured; run: runner configure --url <service url> --token <runner token>" >&2
    exit 1
  fi
}

cmd=\${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  configure)
    url=''
    token=''
    while [ $# -gt 0 ]; do
      case "$1" in
        --url) [ $# -ge 2 ] || { echo "runner: --url needs a value" >&2; exit 2; }; url=$2; shift 2 ;;
        --url=*) url=\${1#--url=}; shift ;;
        --token) [ $# -ge 2 ] || { echo "runner: --token needs a value" >&2; exit 2; }; token=$2; shift 2 ;;
        --token=*) token=\${1#--token=}; shift ;;
        *) echo "runner configure: unknown argument: $1" >&2; exit 2 ;;
      esac
    done
    case "$url" in
      http://?*|https://?*) ;;
      *) echo "runner configure: --url must be the service's http(s) URL" >&2; exit 2 ;;
    esac
    [ -n "$token" ] || { echo "runner configure: --token is required" >&2; exit 2; }
    masked=$(mask "$token")
    umask 077
    printf 'url=%s\\ntoken=%s\\n' "$url" "$masked" > "$conf"
    note "configure --url $url --token $masked"
    echo "would register this machine as a self-hosted runner of $url with token $masked"
    echo "(fake runner: nothing was sent; the URL is kept in $conf, the token is not)"
    ;;
  run)
    need_conf
    note "run"
    echo "would connect to $(setting url) and wait for jobs"
    echo "(fake runner: it runs no job and exits now)"
    ;;
  status)
    if [ -f "$conf" ]; then
      echo "configured for $(setting url) (token $(setting token)); not running (the fake runner never stays running)"
    else
      echo "not configured"
    fi
    ;;
  logs)
    if [ -f "$log" ]; then cat "$log"; else echo "no log yet"; fi
    ;;
  -h|--help|help) usage ;;
  '') usage >&2; exit 2 ;;
  *) echo "runner: unknown command: $cmd" >&2; usage >&2; exit 2 ;;
esac
`;

/** The installer, with the emulator's URL in its closing hint. */
export function installScript(serviceUrl: string): string {
  return `#!/bin/sh
# Installs the service emulator's fake self-hosted runner: a harmless \`runner\` that only prints
# what the real one would do (configure, run, status, logs). Nothing else is changed.
#
#   sh install.sh [--dir DIR]    install into DIR (default: $SERVICE_RUNNER_DIR, else ./service-runner)
set -eu
service_url=${shq(serviceUrl)}
dir=\${SERVICE_RUNNER_DIR:-./service-runner}
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) [ $# -ge 2 ] || { echo "install.sh: --dir needs a folder" >&2; exit 2; }; dir=$2; shift 2 ;;
    --dir=*) dir=\${1#--dir=}; shift ;;
    -h|--help) echo "usage: sh install.sh [--dir DIR]   (default: \\$SERVICE_RUNNER_DIR, else ./service-runner)"; exit 0 ;;
    *) echo "install.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -n "$dir" ] || { echo "install.sh: the folder must not be empty" >&2; exit 2; }
mkdir -p -- "$dir"
tmp="$dir/.runner.$$"
cat > "$tmp" <<'FAKE_RUNNER'
${FAKE_RUNNER}FAKE_RUNNER
chmod 755 "$tmp"
mv -f -- "$tmp" "$dir/runner"
echo "installed the fake runner (it only prints what it would do): $dir/runner"
echo "next: $dir/runner configure --url $service_url --token <RUNNER_TOKEN>"
echo "then: $dir/runner run"
`;
}
