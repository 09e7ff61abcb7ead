-- tradeseal's wrk script for POST /engine/authorize, run by bench/hot-agent.ts beside the IRL Engine's own
-- (bench/irl/authorize.lua): that script's order (its fields, asset, venue, quantity and notional) in tradeseal's
-- form, sent for the agents of AGENT_IDS in turn (one id: one busy agent), each request with a client_order_id
-- no other request sends (RUN_ID, wrk's thread number and a counter). Its done() prints the same summary as the
-- IRL Engine's script, so that both are read alike (bench/irl/wrk-output.ts).
--
--   TOKEN=<client token> AGENT_IDS=<uuid,uuid,...> MODEL_HASH=<64 hex> RUN_ID=<word> \
--     wrk -t2 -c100 -d10s -s bench/irl/engine-authorize.lua http://127.0.0.1:PORT/engine/authorize

local token = os.getenv("TOKEN") or error("TOKEN not set")
local model_hash = os.getenv("MODEL_HASH") or error("MODEL_HASH not set")
local run_id = os.getenv("RUN_ID") or error("RUN_ID not set")
local agents = {}
for id in string.gmatch(os.getenv("AGENT_IDS") or error("AGENT_IDS not set"), "[^,]+") do
    agents[#agents + 1] = id
end

local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("thread_number", threads)
end

local sent = 0
function request()
    sent = sent + 1
    local agent = agents[(sent + thread_number * 7) % #agents + 1]
    local body = string.format(
        '{"agent_id":"%s","model_hash_hex":"%s","model_id":"default","prompt_version":"v1.0.0",' ..
        '"feature_schema_id":"schema-bench-v1","hyperparameter_checksum":"aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899",' ..
        '"action":"Long","asset":"BTC-USD","order_type":"Market","venue_id":"CBSE","quantity":0.37,"notional":16650,' ..
        '"client_order_id":"%s-%d-%d","agent_valid_time":%d}',
        agent, model_hash, run_id, thread_number, sent, os.time() * 1000 - 50)
    return wrk.format("POST", "/engine/authorize", { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token }, body)
end

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
