# Sourced by the cluster smoke scripts: checks that the merge of a sweep's
# shards is the sweep run whole, byte for byte.
#   same_as_whole WHOLE_DIR WHOLE_TABLE MERGED_DIR MERGED_TABLE LABEL
# prints what differs, prefixed with LABEL, and returns 1 if anything does.
same_as_whole() {
    local whole=$1 whole_table=$2 merged=$3 merged_table=$4 label=$5 file failed=0
    for file in replications.csv estimates.csv batch.json; do
        if ! cmp -s "$whole/$file" "$merged/$file"; then
            echo "$label: merged $file differs from the whole sweep's" >&2
            failed=1
        fi
    done
    if ! cmp -s "$whole_table" "$merged_table"; then
        echo "$label: the merged table differs from the whole sweep's" >&2
        failed=1
    fi
    return "$failed"
}
