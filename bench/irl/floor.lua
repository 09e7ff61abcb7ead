-- The floor of bench/hot-agent.ts under wrk: POST /bench/floor (bench/engine-server.ts: the HTTP stack and one
-- INSERT, committed), every request alike. Its done() prints the same summary as the IRL Engine's script, so that
-- both are read alike (bench/irl/wrk-output.ts).

wrk.method = "POST"
wrk.body = '{"payload":"bench floor row"}'
wrk.headers["Content-Type"] = "application/json"

function response(status, headers, body)
    if status ~= 200 and status ~= 201 then
        io.stderr:write(string.format("[WARN] HTTP %d: %s\n", status, body))
    end
end

function done(summary, latency, requests)
    io.write("\n=== Summary ===\n")
    io.write(string.format("p50 latency  : %.2f ms\n", latency:percentile(50) / 1000))
    io.write(string.format("p95 latency  : %.2f ms\n", latency:percentile(95) / 1000))
    io.write(string.format("p99 latency  : %.2f ms\n", latency:percentile(99) / 1000))
    io.write(string.format("p99.9 latency: %.2f ms\n", latency:percentile(99.9) / 1000))
end
