# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_gc_global_optspecs
    string join \n snapshot= f/filename= R/recursive skip-broken-input assume-complete max-input-size= n/namespace= A/all-namespaces= l/selector= kind= field-selector= kubeconfig= context= cluster= user= s/server= token= certificate-authority= client-certificate= client-key= tls-server-name= insecure-skip-tls-verify= as= as-group= as-uid= request-timeout= concurrency= chunk-size= gc-version= color= v/v= h/help V/version
end

function __fish_kubectl_gc_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_gc_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_gc_using_subcommand
    set -l cmd (__fish_kubectl_gc_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "audit" -d 'Classify every ownerReference as the GC would and report what is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "collect" -d 'Show what the GC would delete or patch (dry run), or preview a delete\'s cascade'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "check" -d 'Safety gates for CI: what a GC restart or an upgrade would delete, and what blocks the GC'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "snapshot" -d 'Write a snapshot of every deletable resource\'s object metadata'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "graph" -d 'Show the ownership graph as the GC sees it: a tree, DOT (styled, or identical to the GC\'s debug endpoint), Mermaid, JSON or YAML; or compare it with the GC\'s own graph'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "history" -d 'What the GC and the namespace controller deleted, and why: forensics from API-server audit logs'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "relink" -d 'Put back the ownerReferences a restore stripped, with the owners\' current UIDs'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "why" -d 'Explain one object: why it is stuck, why the GC will (not) delete it, what to do'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "watch" -d 'Watch the cluster like a shadow GC: report findings as they appear, change or resolve, with what the GC will do and when (now, at its next restart, never)'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "admit" -d 'Serve a validating admission webhook that warns about (or refuses) ownerReferences the GC will act on, as they are written'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "policy" -d 'Print the checks that need no lookup as a ValidatingAdmissionPolicy and its binding (Kubernetes 1.30+): the API server warns about (or refuses) such ownerReferences itself'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "mcp" -d 'Serve the GC model as Model Context Protocol tools for AI agents (read-only unless --allow-apply)'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "options" -d 'Print the global command-line options (they apply to every command)'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "codes" -d 'List the finding codes, or explain one: what it means, what the GC does, the fix'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "version" -d 'Print the version of kubectl-gc (and, with -o, its build information)'
complete -c kubectl-gc -n "__fish_kubectl_gc_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=NAME:JSONPATH,…' -r -f -a "table\t'a table that fits the terminal'
wide\t'a table with more columns, never truncated'
json\t'the JSON report'
yaml\t'the JSON report as YAML'
name\t'kind.group/name of each object'
sarif\t'SARIF 2.1.0 for code scanning (audit, check)'
junit\t'JUnit XML, one test case per finding (audit, check)'
markdown\t'Markdown for a pull-request comment (audit, check)'
html\t'a self-contained HTML page with pictures (audit, check)'
jsonpath=\t'a kubectl JSONPath template: jsonpath={.findings[*].code}'
custom-columns=\t'columns HEADER:JSONPATH,… over the items: custom-columns=CODE:.code'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l sort-by -d 'Sort the rows (and the JSON/YAML items) by this JSONPath, evaluated on each item as JSON shows it (e.g. `.object.name`, `{.severity}`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s L -l label-columns -d 'Add a column with the value of each of these labels (repeatable or comma-separated)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l fail-on -d 'Exit with code 5 when a finding has at least this severity (never, info, warning, error, critical)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l output-file -d 'Write the report to FILE instead of stdout, atomically (a temporary file in the same directory, renamed when complete: never a partial report). Every -o form' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l no-headers -d 'Tables and custom-columns: print the rows only (no header, no detail blocks, no summary line)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l show-labels -d 'Add a LABELS column with all of the object\'s labels'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l events -d 'Live clusters: attach the `OwnerRefInvalidNamespace` events the GC has recorded to the matching cross-namespace findings (one extra list of core Events)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l all-contexts -d 'Audit every context of the kubeconfig, concurrently, into one report (as --context a,b,c does for the contexts named)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=NAME:JSONPATH,…' -r -f -a "table\t'a table that fits the terminal'
wide\t'a table with more columns, never truncated'
json\t'the JSON report'
yaml\t'the JSON report as YAML'
name\t'kind.group/name of each object'
sarif\t'SARIF 2.1.0 for code scanning (audit, check)'
junit\t'JUnit XML, one test case per finding (audit, check)'
markdown\t'Markdown for a pull-request comment (audit, check)'
html\t'a self-contained HTML page with pictures (audit, check)'
jsonpath=\t'a kubectl JSONPath template: jsonpath={.findings[*].code}'
custom-columns=\t'columns HEADER:JSONPATH,… over the items: custom-columns=CODE:.code'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l sort-by -d 'Sort the rows (and the JSON/YAML items) by this JSONPath, evaluated on each item as JSON shows it (e.g. `.object.name`, `{.severity}`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s L -l label-columns -d 'Add a column with the value of each of these labels (repeatable or comma-separated)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l delete -d 'Preview deleting this object (KIND/NAME, e.g. deployment/web or deployments.apps/web)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l cascade -d 'Propagation policy of the previewed delete' -r -f -a "background\t'propagationPolicy=Background (kubectl\'s default)'
foreground\t'propagationPolicy=Foreground'
orphan\t'propagationPolicy=Orphan'
default\t'No policy: the type\'s default (RC, Job and CronJob orphan; others background)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l record -d 'The record of every action --apply attempts (NDJSON; default: `./kubectl-gc-apply-<UTC time>.json`; never overwritten)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l qps -d 'Requests per second --apply may send (bursts of 1.5 × N)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l output-file -d 'Write the report to FILE instead of stdout, atomically (a temporary file in the same directory, renamed when complete: never a partial report). Every -o form' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l no-headers -d 'Tables and custom-columns: print the rows only (no header, no detail blocks, no summary line)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l show-labels -d 'Add a LABELS column with all of the object\'s labels'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l apply -d 'Perform the plan on the live cluster (each action re-verified first; default: dry run). With --delete: perform that delete only (the GC does the cascade)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s y -l yes -d 'Apply without asking (required when stdin or stderr is not a terminal)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand collect" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l to -d 'Adds the upgrade check to restart and health: the target Kubernetes version (e.g. 1.25)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l crd -d 'CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade (repeatable; with --to)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=NAME:JSONPATH,…' -r -f -a "table\t'a table that fits the terminal'
wide\t'a table with more columns, never truncated'
json\t'the JSON report'
yaml\t'the JSON report as YAML'
name\t'kind.group/name of each object'
sarif\t'SARIF 2.1.0 for code scanning (audit, check)'
junit\t'JUnit XML, one test case per finding (audit, check)'
markdown\t'Markdown for a pull-request comment (audit, check)'
html\t'a self-contained HTML page with pictures (audit, check)'
jsonpath=\t'a kubectl JSONPath template: jsonpath={.findings[*].code}'
custom-columns=\t'columns HEADER:JSONPATH,… over the items: custom-columns=CODE:.code'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l sort-by -d 'Sort the rows (and the JSON/YAML items) by this JSONPath, evaluated on each item as JSON shows it (e.g. `.object.name`, `{.severity}`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -s L -l label-columns -d 'Add a column with the value of each of these labels (repeatable or comma-separated)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l fail-on -d 'Exit with code 5 when a finding has at least this severity' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l output-file -d 'Write the report to FILE instead of stdout, atomically (a temporary file in the same directory, renamed when complete: never a partial report). Every -o form' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l no-headers -d 'Tables and custom-columns: print the rows only (no header, no detail blocks, no summary line)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l show-labels -d 'Add a LABELS column with all of the object\'s labels'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l all-contexts -d 'Audit every context of the kubeconfig, concurrently, into one report (as --context a,b,c does for the contexts named)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -f -a "restart" -d 'What a restarted GC deletes or strips right after it starts'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -f -a "upgrade" -d 'What changes when the GC is upgraded (--to required)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -f -a "health" -d 'Resources the GC cannot list or watch, and deletions that do not progress'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -f -a "apply" -d 'What the GC does to objects once they are created: manifests, exports, Velero backups'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and not __fish_seen_subcommand_from restart upgrade health apply help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=NAME:JSONPATH,…' -r -f -a "table\t'a table that fits the terminal'
wide\t'a table with more columns, never truncated'
json\t'the JSON report'
yaml\t'the JSON report as YAML'
name\t'kind.group/name of each object'
sarif\t'SARIF 2.1.0 for code scanning (audit, check)'
junit\t'JUnit XML, one test case per finding (audit, check)'
markdown\t'Markdown for a pull-request comment (audit, check)'
html\t'a self-contained HTML page with pictures (audit, check)'
jsonpath=\t'a kubectl JSONPath template: jsonpath={.findings[*].code}'
custom-columns=\t'columns HEADER:JSONPATH,… over the items: custom-columns=CODE:.code'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l fail-on -d 'Exit with code 5 when a finding has at least this severity' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l output-file -d 'Write the report to FILE instead of stdout, atomically (a temporary file in the same directory, renamed when complete: never a partial report). Every -o form' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l no-headers -d 'Tables and custom-columns: print the rows only (no header, no detail blocks, no summary line)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l all-contexts -d 'Audit every context of the kubeconfig, concurrently, into one report (as --context a,b,c does for the contexts named)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from restart" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l to -d 'Target Kubernetes version (e.g. 1.25)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l crd -d 'CustomResourceDefinition manifests (YAML/JSON) as they will be after the upgrade (repeatable): versions they stop serving break ownerReferences' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=NAME:JSONPATH,…' -r -f -a "table\t'a table that fits the terminal'
wide\t'a table with more columns, never truncated'
json\t'the JSON report'
yaml\t'the JSON report as YAML'
name\t'kind.group/name of each object'
sarif\t'SARIF 2.1.0 for code scanning (audit, check)'
junit\t'JUnit XML, one test case per finding (audit, check)'
markdown\t'Markdown for a pull-request comment (audit, check)'
html\t'a self-contained HTML page with pictures (audit, check)'
jsonpath=\t'a kubectl JSONPath template: jsonpath={.findings[*].code}'
custom-columns=\t'columns HEADER:JSONPATH,… over the items: custom-columns=CODE:.code'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l fail-on -d 'Exit with code 5 when a finding has at least this severity' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l output-file -d 'Write the report to FILE instead of stdout, atomically (a temporary file in the same directory, renamed when complete: never a partial report). Every -o form' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l no-headers -d 'Tables and custom-columns: print the rows only (no header, no detail blocks, no summary line)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l all-contexts -d 'Audit every context of the kubeconfig, concurrently, into one report (as --context a,b,c does for the contexts named)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from upgrade" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=NAME:JSONPATH,…' -r -f -a "table\t'a table that fits the terminal'
wide\t'a table with more columns, never truncated'
json\t'the JSON report'
yaml\t'the JSON report as YAML'
name\t'kind.group/name of each object'
sarif\t'SARIF 2.1.0 for code scanning (audit, check)'
junit\t'JUnit XML, one test case per finding (audit, check)'
markdown\t'Markdown for a pull-request comment (audit, check)'
html\t'a self-contained HTML page with pictures (audit, check)'
jsonpath=\t'a kubectl JSONPath template: jsonpath={.findings[*].code}'
custom-columns=\t'columns HEADER:JSONPATH,… over the items: custom-columns=CODE:.code'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l fail-on -d 'Exit with code 5 when a finding has at least this severity' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l output-file -d 'Write the report to FILE instead of stdout, atomically (a temporary file in the same directory, renamed when complete: never a partial report). Every -o form' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l no-headers -d 'Tables and custom-columns: print the rows only (no header, no detail blocks, no summary line)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l all-contexts -d 'Audit every context of the kubeconfig, concurrently, into one report (as --context a,b,c does for the contexts named)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from health" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l target -d 'The target — `empty` (a new cluster) or a snapshot FILE of it; default: the live cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l restorer -d 'How the objects are created (apply: references kept; velero: stripped)' -r -f -a "apply\t'kubectl apply/create, GitOps tools: ownerReferences kept as written'
velero\t'Velero: ownerReferences stripped; nodes and events not restored'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -s o -l output -d 'Output format: table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=NAME:JSONPATH,…' -r -f -a "table\t'a table that fits the terminal'
wide\t'a table with more columns, never truncated'
json\t'the JSON report'
yaml\t'the JSON report as YAML'
name\t'kind.group/name of each object'
sarif\t'SARIF 2.1.0 for code scanning (audit, check)'
junit\t'JUnit XML, one test case per finding (audit, check)'
markdown\t'Markdown for a pull-request comment (audit, check)'
html\t'a self-contained HTML page with pictures (audit, check)'
jsonpath=\t'a kubectl JSONPath template: jsonpath={.findings[*].code}'
custom-columns=\t'columns HEADER:JSONPATH,… over the items: custom-columns=CODE:.code'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l fail-on -d 'Exit with code 5 when a finding has at least this severity' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l baseline -d 'Suppress the findings recorded in this baseline file (see --write-baseline)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l write-baseline -d 'Write the current findings as a baseline file (then exit as usual)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l output-file -d 'Write the report to FILE instead of stdout, atomically (a temporary file in the same directory, renamed when complete: never a partial report). Every -o form' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l no-headers -d 'Tables and custom-columns: print the rows only (no header, no detail blocks, no summary line)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l strict-coverage -d 'Exit with code 6 when some resource could not be read (forbidden, failed, discovery errors), even if nothing else is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l all-contexts -d 'Audit every context of the kubeconfig, concurrently, into one report (as --context a,b,c does for the contexts named)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from apply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from help" -f -a "restart" -d 'What a restarted GC deletes or strips right after it starts'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from help" -f -a "upgrade" -d 'What changes when the GC is upgraded (--to required)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from help" -f -a "health" -d 'Resources the GC cannot list or watch, and deletions that do not progress'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from help" -f -a "apply" -d 'What the GC does to objects once they are created: manifests, exports, Velero backups'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand check; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s o -l output -d 'File to write (gzip-compressed when it ends in .gz; `-` for stdout). The format is always the snapshot\'s NDJSON: `-o json` is refused rather than written to a file named `json` (write `./json` for that)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand snapshot" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l uid -d 'Start from the object with this UID (repeatable), like the GC endpoint\'s ?uid=' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l direction -d 'From the start objects, follow owners (up), dependents (down) or both' -r -f -a "up\t'Owners, their owners, …'
down\t'Dependents, their dependents, …'
both\t'Both: the connected component (the GC endpoint\'s ?uid=)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l depth -d 'At most this many ownerReference hops from the start objects' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s o -l output -d 'Output format: tree, dot, mermaid, json, yaml, name, jsonpath=TEMPLATE, custom-columns=NAME:JSONPATH,… (JSONPath over the JSON document\'s nodes)' -r -f -a "tree\t'owners above dependents, with the GC\'s view'
dot\t'Graphviz DOT (see --dot-format)'
mermaid\t'a Mermaid flowchart'
json\t'nodes and edges as JSON'
yaml\t'the JSON document as YAML'
name\t'kind.group/name of each object'
jsonpath=\t'a kubectl JSONPath template: jsonpath={.findings[*].code}'
custom-columns=\t'columns HEADER:JSONPATH,… over the items: custom-columns=CODE:.code'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l dot-format -d 'The DOT flavour: styled (for people), gc (the GC debug endpoint\'s, Kubernetes ≥ 1.26) or legacy (the endpoint\'s of 1.12–1.25)' -r -f -a "styled\t'For people: dangling references dashed red, virtual owners dashed boxes, terminating objects marked, blocked foreground chains coloured, clusters by namespace'
gc\t'Byte-for-byte the GC debug endpoint\'s DOT, Kubernetes 1.26 and later (UID vertex ids, Go-quoted strings)'
legacy\t'The GC debug endpoint\'s DOT of Kubernetes 1.12–1.25 (gonum\'s encoder): integer vertex ids'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l from-gc -d 'Compare with the real GC\'s graph: its debug endpoint (http(s)://HOST:PORT, optionally with the path) or a saved DOT file. Prints the differences (-o json for JSON)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l output-file -d 'Write the report to FILE instead of stdout, atomically (a temporary file in the same directory, renamed when complete: never a partial report). Every -o form' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l no-headers -d 'Tree and custom-columns: print the rows only (no header)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l gc-insecure-skip-tls-verify -d 'Do not verify the TLS certificate of the --from-gc endpoint (kube-controller-manager usually serves a self-signed one)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l gc-send-credentials -d 'Send the kubeconfig\'s credentials (token, client certificate) to the --from-gc endpoint even though it is not the kubeconfig\'s own server (https only). Without it, they go only to the server the kubeconfig names (same scheme, host and port)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand graph" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l audit-log -d 'API-server audit logs: files, directories, globs, `.gz`, `-` for stdin (repeatable). JSON lines, webhook EventLists, OpenShift must-gathers, EKS, GKE and AKS exports are recognised by content' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l controller-manager-log -d 'kube-controller-manager\'s own log, for clusters without an audit log: files, rotated and `.gz` files, directories and must-gathers (files naming the controller manager), `-` for stdin (repeatable). klog text at any --v, `kubectl logs` with or without --timestamps, journald (short-iso, json), the JSON logging format, Cloud Logging and CloudWatch exports' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l year -d 'The year of the controller manager\'s klog times, which have none (of each input\'s first line; default: the log\'s own header, the audit log\'s window, or the file\'s modification time, said in a note)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l actor -d 'Only actions by the garbage collector, the namespace controller, users and other controllers (`user`), or all' -r -f -a "all\t'Every action'
gc\t'The garbage collector\'s'
namespace\t'The namespace controller\'s'
user\t'People\'s and other controllers\''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l since -d 'Only actions at or after this time: RFC 3339, or a duration back from now (90s, 15m, 1h30m, 2d), as kubectl logs --since takes one' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l until -d 'Only actions at or before this time: RFC 3339, or a duration back from now' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l after -d 'The state after the log: a snapshot FILE or a path as -f takes it (a must-gather\'s resources, a kubectl dump), or `cluster` for the live cluster now (connection flags then apply). It shows what became of each object, owners that still exist, and — with the state before — what went without a deletion of its own in the log' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -s o -l output -d 'Output format: table, wide, json, yaml or html' -r -f -a "table\t'Unexplained GC actions first, then every action with its cause'
wide\t'The table with full causes, users and where each event was read'
json\t'The `History` document as JSON (schemas/history.schema.json)'
yaml\t'The same as YAML'
html\t'A self-contained page: the timeline as a picture, then every action'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l output-file -d 'Write the report to FILE instead of stdout, atomically (a temporary file in the same directory, renamed when complete: never a partial report). Every -o form' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l target -d 'The target to relink: a snapshot FILE of it (dry run only); default: the live cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l record -d 'The record of every patch --apply sends (NDJSON, mode 0600; default: `./kubectl-gc-relink-<UTC time>.json`; never overwritten)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -s o -l output -d 'Output format: table, json or yaml' -r -f -a "table\t'The links and the skipped references, as tables'
json\t'The `RelinkPlan` document as JSON'
yaml\t'The same as YAML'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l include-adoptable -d 'Also link `controller: true` references of workloads whose controllers adopt by selector (Pods of ReplicaSets, ReplicaSets of Deployments, Pods of Jobs, …)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l apply -d 'Patch the live cluster (each object and owner re-read first; default: dry run)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -s y -l yes -d 'Apply without asking (required when stdin or stderr is not a terminal)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand relink" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -s o -l output -d 'Output format: text (a verdict, then the evidence as a tree), json or yaml' -r -f -a "text\t'A verdict, then the evidence as a tree'
json\t'The answer as JSON (schemas/why.schema.json)'
yaml\t'The answer as YAML'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l audit-log -d 'For an object that is gone: API-server audit logs that say who deleted it and why (as `history --audit-log`; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l output-file -d 'Write the report to FILE instead of stdout, atomically (a temporary file in the same directory, renamed when complete: never a partial report). Every -o form' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand why" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s o -l output -d 'Output format' -r -f -a "text\t'One line per transition'
json\t'One JSON object per transition (NDJSON)'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l fail-on -d 'Exit with code 5 at the first transition that appears or changes at or above this severity (never, info, warning, error, critical)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l metrics-addr -d 'Serve Prometheus metrics (/metrics), /healthz and /readyz on this address (e.g. 0.0.0.0:9464)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l resync -d 'How often discovery is refreshed and ages re-evaluated (the GC\'s resync period)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l state-file -d 'Keep the findings held in this file, so that a restarted watch reports only what changed while it was not running' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand watch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l mode -d 'Warn (admit with warnings) or deny (refuse) a write whose new ownerReference the GC will act on' -r -f -a "warn\t'Admit, with a warning kubectl prints'
deny\t'Refuse the write with the message'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l listen -d 'Serve HTTPS here' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l tls-cert-file -d 'The serving certificate (PEM, chain first); read again when it changes' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l tls-private-key-file -d 'Its private key (PEM); read again when it changes' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l client-ca-file -d 'Answer reviews only over connections that present a client certificate this CA (PEM) signed: the one the API server presents through its admission configuration. Without it, anyone who reaches the port is answered, and learns which owners exist where' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l timeout -d 'Answer every review within this time (a check the graph has not answered by then is admitted)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l max-in-flight -d 'Checks on the graph in flight at once (beyond it, writes are admitted unchecked)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l max-connections -d 'Connections served at once; a new one beyond them takes the place of the oldest idle or slow connection' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l only-namespace -d 'Judge only writes in this namespace (repeatable; default: every namespace and cluster-scoped objects)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l skip-namespace -d 'Never judge writes in this namespace (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l url -d 'The webhook\'s URL as the API server reaches it (https://HOST:PORT/validate)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l ca-file -d 'The CA certificate (PEM) that signed the serving certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l release -d 'The Kubernetes release the configuration is for (what it can keep off the wire depends on it) [default: the connected cluster\'s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l check-permissions -d 'Also warn when OwnerReferencesPermissionEnforcement would refuse the write for its sender (blockOwnerDeletion=true without update on the owner\'s finalizers, or a changed ownerReferences without delete), asked of the API server with a SubjectAccessReview: the webhook\'s service account needs create on subjectaccessreviews. A warning in every mode; an answer that does not come within --timeout says nothing'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l print-config -d 'Print the ValidatingWebhookConfiguration for --url and --ca-file, and exit'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand admit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l validation-actions -d 'What the API server does with a write that fails a check (comma-separated; Deny and Warn exclude each other)' -r -f -a "warn\t'Admit, with a warning kubectl prints'
audit\t'Admit, with the message in the audit log\'s annotations'
deny\t'Refuse the write with the message'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l release -d 'The Kubernetes release whose built-in kinds the policy knows (1.30 or later: the first to serve ValidatingAdmissionPolicy v1) [default: the newest modelled]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l only-namespace -d 'Judge only writes in this namespace (repeatable; default: every namespace and cluster-scoped objects)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l skip-namespace -d 'Never judge writes in this namespace (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand policy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l root -d 'The directory file arguments are confined to (default: the working directory). Paths are resolved against it; `..`, absolute paths and links leading out of it are refused' -r -f -a "(__fish_complete_directories)"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l listen -d 'Serve streamable HTTP on this loopback address (e.g. 127.0.0.1:8765) instead of stdio. Requests need `Authorization: Bearer TOKEN`' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l token-file -d 'With --listen: the file holding the bearer token (default: $KUBECTL_GC_MCP_TOKEN, else a random token printed once on stderr)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l timeout -d 'Time limit of one tool call (the command is stopped and the call answers an error)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l max-answer-size -d 'Largest answer (the JSON document) of one call; a larger one comes in pages with a continuation' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l max-concurrency -d 'Tool calls run at once; further calls wait' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l plan-ttl -d 'How long a planId stays valid' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l qps -d 'apply_plan: requests per second' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l allow-apply -d 'Offer apply_plan: carry out a plan that plan or delete_preview returned, after a re-read shows nothing it read has changed. Without it the server never writes to a cluster'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand options" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand codes" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -s o -l output -d 'Output format: the version line, or json / yaml with the build information' -r -f -a "json\t'JSON'
yaml\t'YAML'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l snapshot -d 'Read a snapshot written by `kubectl gc snapshot` instead of the cluster' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -s f -l filename -d 'Read objects from `kubectl get -o json|yaml` output, support bundles or must-gathers (files, directories, `-` for stdin; repeatable)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l max-input-size -d '-f, --snapshot, --audit-log: read at most this much from one decompressed file, archive member or pipe (e.g. 512Mi, 20Gi)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -s n -l namespace -d 'Only this namespace (default: the context\'s namespace for live clusters, all for files)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -s A -l all-namespaces -d 'All namespaces (`-A`, `-A=true`, `-A=false`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -s l -l selector -d 'Only objects matching this label selector (`app=web,tier!=db`, `env in (a,b)`, `!key`)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l kind -d 'Only objects of these kinds, as kubectl names them: kind, plural, singular, short name or `kind.group` (repeatable or comma-separated). A kind the input does not hold is an error' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l field-selector -d 'Only objects whose fields match: `metadata.name` and `metadata.namespace` with `=`, `==` or `!=` (comma-separated; the input holds metadata only)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l context -d 'The kubeconfig context to use (audit and check: several, comma-separated, are audited concurrently into one report)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -s s -l server -d 'The address and port of the Kubernetes API server (overrides the kubeconfig\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l certificate-authority -d 'Path to a certificate authority file for the API server\'s certificate' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l tls-server-name -d 'Server name to use for the API server\'s certificate check (default: the server\'s host)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l insecure-skip-tls-verify -d 'Do not check the API server\'s certificate (insecure: anyone on the path can read and change what is sent)' -r -f -a "true\t''
false\t''"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l as -d 'Username to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l as-group -d 'Group to impersonate (repeatable)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l as-uid -d 'UID to impersonate' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l request-timeout -d 'Time to wait for one API request (e.g. 30s, 2m; 0 = no limit; default 30s, at most 24h)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l concurrency -d 'Resources listed concurrently from a live cluster' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l chunk-size -d 'Objects per list page [default: 500, growing to 10000 while the server answers pages within 0.5s]' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l gc-version -d 'Emulate this kube-controller-manager release\'s GC (default: the cluster\'s version, else the newest). GC behaviour differs before 1.20 (UID-keyed absent cache, issue #65200)' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l color -d 'Colour: auto (only on a terminal and without NO_COLOR), always, never' -r -f -a "auto\t'On a terminal, unless NO_COLOR is set'
always\t'Always'
never\t'Never'"
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -s v -l v -d 'Log verbosity, as kubectl\'s: 4 logs what is read, 6 every API request (method, URL, status, time), 8 and more everything the client library logs' -r
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -s R -l recursive -d 'Walk directories given with -f recursively'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l skip-broken-input -d '-f: report broken documents and go on without them instead of failing (exit 3); what they could hold (their kinds in their namespaces, or everything) is then unknown'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -l assume-complete -d '-f: declare the input complete: every kind it holds counts as listed in full in every namespace it holds, so a missing owner of such a kind is reported as absent. Only for whole-kind dumps (`kubectl get KIND,KIND -A -o json`): after `kubectl get pod/a`, -l or a partial copy, owners left out would be reported missing and planned for deletion'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand version" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "audit" -d 'Classify every ownerReference as the GC would and report what is wrong'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "collect" -d 'Show what the GC would delete or patch (dry run), or preview a delete\'s cascade'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "check" -d 'Safety gates for CI: what a GC restart or an upgrade would delete, and what blocks the GC'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "snapshot" -d 'Write a snapshot of every deletable resource\'s object metadata'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "graph" -d 'Show the ownership graph as the GC sees it: a tree, DOT (styled, or identical to the GC\'s debug endpoint), Mermaid, JSON or YAML; or compare it with the GC\'s own graph'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "history" -d 'What the GC and the namespace controller deleted, and why: forensics from API-server audit logs'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "relink" -d 'Put back the ownerReferences a restore stripped, with the owners\' current UIDs'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "why" -d 'Explain one object: why it is stuck, why the GC will (not) delete it, what to do'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "watch" -d 'Watch the cluster like a shadow GC: report findings as they appear, change or resolve, with what the GC will do and when (now, at its next restart, never)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "admit" -d 'Serve a validating admission webhook that warns about (or refuses) ownerReferences the GC will act on, as they are written'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "policy" -d 'Print the checks that need no lookup as a ValidatingAdmissionPolicy and its binding (Kubernetes 1.30+): the API server warns about (or refuses) such ownerReferences itself'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "mcp" -d 'Serve the GC model as Model Context Protocol tools for AI agents (read-only unless --allow-apply)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "completion" -d 'Print a shell completion script (bash, zsh, fish, powershell, elvish)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "options" -d 'Print the global command-line options (they apply to every command)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "codes" -d 'List the finding codes, or explain one: what it means, what the GC does, the fix'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "version" -d 'Print the version of kubectl-gc (and, with -o, its build information)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and not __fish_seen_subcommand_from audit collect check snapshot graph history relink why watch admit policy mcp completion options codes version help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and __fish_seen_subcommand_from check" -f -a "restart" -d 'What a restarted GC deletes or strips right after it starts'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and __fish_seen_subcommand_from check" -f -a "upgrade" -d 'What changes when the GC is upgraded (--to required)'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and __fish_seen_subcommand_from check" -f -a "health" -d 'Resources the GC cannot list or watch, and deletions that do not progress'
complete -c kubectl-gc -n "__fish_kubectl_gc_using_subcommand help; and __fish_seen_subcommand_from check" -f -a "apply" -d 'What the GC does to objects once they are created: manifests, exports, Velero backups'
