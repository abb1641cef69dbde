# bench/bcast/ab_rounds.sh - sourced by int_ab.sh and bits_ab.sh:
# ab_rounds OLD NEW DIR MODEL... runs each DIR/MODEL.onnx with its inputs
# (DIR/MODEL.*.pb) through `run --repeat 20 --threads 1`, OLD and NEW
# interleaved, three rounds, printing "MODEL before|after median=MS";
# uptime before and after.
ab_rounds() {
    old=$1 new=$2 dir=$3
    shift 3
    uptime
    for m in "$@"; do
        ins=$(ls "$dir/$m".*.pb | sed 's/^/--input /' | tr '\n' ' ')
        for r in 1 2 3; do
            for v in "before:$old" "after:$new"; do
                # shellcheck disable=SC2086
                t=$("${v#*:}" run "$dir/$m.onnx" $ins --repeat 20 --threads 1 2>&1 |
                    grep -o 'median=[0-9.]*')
                echo "$m ${v%%:*} $t"
            done
        done
    done
    uptime
}
