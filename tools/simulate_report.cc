#include "simulate_report.h"

#include <algorithm>

#include "duration_flag.h"
#include "render/numbers.h"
#include "render/text_table.h"

namespace stormguard::cli {
namespace {

using namespace render;  // the reports' tables and numbers

nlohmann::ordered_json StormRowJson(const sim::StormRow& row, bool series) {
  nlohmann::ordered_json j;
  j["strategy"] = sim::StrategyName(row.strategy);
  j["total_retries"] = row.total_retries;
  j["peak_per_bucket"] = row.peak_per_bucket;
  j["last_retry_s"] = Seconds(row.last_retry);
  if (series) j["retries_per_bucket"] = row.retries_per_bucket;
  return j;
}

std::string StormSeriesTable(const sim::StormResult& r) {
  std::vector<std::string> header{"t (s)"};
  std::size_t buckets = 0;
  for (const auto& row : r.rows) {
    header.emplace_back(sim::StrategyName(row.strategy));
    buckets = std::max(buckets, row.retries_per_bucket.size());
  }
  TextTable t(header);
  const sim::Series frame(r.options.bucket, 0, 0);
  for (std::size_t i = 0; i < buckets; ++i) {
    std::vector<std::string> cells{Fixed(frame.StartSeconds(i), 1)};
    for (const auto& row : r.rows) cells.push_back(std::to_string(sim::At(row.retries_per_bucket, i)));
    t.Row(cells);
  }
  return "\nretries per bucket:\n" + t.Render();
}

std::string TimeLeft(const sim::DeadlineResult& r) {
  std::string left = Fixed(Millis(r.options.budget - r.elapsed), 1) + " ms";
  if (r.stop_reason == StopReason::kDeadline) {
    left += ", less than the next wait plus a call (" + FormatDuration(r.options.min_call) + ")";
  }
  return left;
}

}  // namespace

Report StormReport(const sim::StormResult& r, bool series) {
  const sim::StormOptions& o = r.options;
  Report out;
  out.table = std::to_string(o.clients) + " clients fail at the same instant and retry " + std::to_string(o.retries) +
              " times (base " + FormatDuration(o.base) + ", cap " + FormatDuration(o.cap) + ", seed " +
              std::to_string(o.seed) + ")\n\n";
  TextTable t({"strategy", "total retries", "peak per " + FormatDuration(o.bucket), "last retry"});
  for (const auto& row : r.rows) {
    t.Row({std::string(sim::StrategyName(row.strategy)), std::to_string(row.total_retries),
           std::to_string(row.peak_per_bucket), Fixed(Seconds(row.last_retry), 1) + " s"});
  }
  out.table += t.Render();
  if (series) out.table += StormSeriesTable(r);

  out.json["scenario"] = "storm";
  out.json["clients"] = o.clients;
  out.json["retries"] = o.retries;
  out.json["base_ms"] = Millis(o.base);
  out.json["cap_ms"] = Millis(o.cap);
  out.json["bucket_ms"] = Millis(o.bucket);
  out.json["seed"] = o.seed;
  if (r.rows.size() == 1) {
    out.json.update(StormRowJson(r.rows[0], series));
  } else {
    for (const auto& row : r.rows) out.json["strategies"].push_back(StormRowJson(row, series));
  }

  out.plot = {.title = "retries per " + FormatDuration(o.bucket) + ", " + std::to_string(o.clients) +
                       " clients failing at once",
              .x_label = "seconds since the failure",
              .y_label = "retries per bucket",
              .lines = {}};
  const sim::Series frame(o.bucket, 0, 0);
  for (const auto& row : r.rows) {
    render::PlotLine line{.name = std::string(sim::StrategyName(row.strategy)), .x = {}, .y = {}};
    for (std::size_t i = 0; i < row.retries_per_bucket.size(); ++i) {
      line.x.push_back(frame.StartSeconds(i));
      line.y.push_back(static_cast<double>(row.retries_per_bucket[i]));
    }
    out.plot.lines.push_back(std::move(line));
  }
  return out;
}

Report DeadlineReport(const sim::DeadlineResult& r, bool /*series*/) {
  const sim::DeadlineOptions& o = r.options;
  Report out;
  out.table = "one call with a " + FormatDuration(o.budget) + " budget; every call takes " + FormatDuration(o.call) +
              " and answers 503; up to " + std::to_string(o.max_attempts) + " attempts, full-jitter backoff " +
              FormatDuration(o.base) + " to " + FormatDuration(o.cap) + ", a call needs " + FormatDuration(o.min_call) +
              "; token bucket " + Fixed(o.max_tokens, 1) + " tokens, +" + Fixed(o.token_ratio, 1) +
              " per success; seed " + std::to_string(o.seed) + "\n\n";
  TextTable attempts({"attempt", "start", "end", "wait after"});
  render::PlotLine left{.name = "budget left (ms)", .x = {0}, .y = {Millis(o.budget)}};
  for (const auto& a : r.attempts) {
    attempts.Row({std::to_string(a.number), Fixed(Millis(a.start), 1) + " ms", Fixed(Millis(a.end), 1) + " ms",
                  a.wait > Duration::zero() ? Fixed(Millis(a.wait), 1) + " ms" : ""});
    nlohmann::ordered_json j;
    j["attempt"] = a.number;
    j["start_ms"] = Millis(a.start);
    j["end_ms"] = Millis(a.end);
    j["wait_ms"] = Millis(a.wait);
    out.json["attempts"].push_back(j);
    for (Duration t : {a.start, a.end, a.end + a.wait}) {
      left.x.push_back(Millis(t));
      left.y.push_back(std::max(0.0, Millis(o.budget - t)));
    }
  }
  out.table += attempts.Render();
  out.table += "\n" + KeyValues({{"calls", std::to_string(r.calls)},
                                 {"tokens left", Fixed(r.tokens_left, 1)},
                                 {"elapsed", Fixed(Millis(r.elapsed), 1) + " ms"},
                                 {"time left", TimeLeft(r)},
                                 {"stopped", std::string(sim::StopExplanation(r.stop_reason)) + " (" +
                                                 std::string(StopReasonName(r.stop_reason)) + ")"},
                                 {"result", r.final_status}});

  nlohmann::ordered_json head;
  head["scenario"] = "deadline";
  head["budget_ms"] = Millis(o.budget);
  head["call_ms"] = Millis(o.call);
  head["max_attempts"] = o.max_attempts;
  head["seed"] = o.seed;
  head["calls"] = r.calls;
  head["tokens_left"] = Round(r.tokens_left, 3);
  head["stop_reason"] = StopReasonName(r.stop_reason);
  head["stop_explanation"] = sim::StopExplanation(r.stop_reason);
  head["elapsed_ms"] = Millis(r.elapsed);
  head["result"] = r.final_status;
  head.update(out.json);
  out.json = std::move(head);
  out.plot = {.title = "time left in a " + FormatDuration(o.budget) + " budget, attempt by attempt",
              .x_label = "milliseconds",
              .y_label = "milliseconds left",
              .lines = {std::move(left)}};
  return out;
}

Report ContentionReport(const sim::ContentionResult& r, bool series) {
  const sim::ContentionOptions& o = r.options;
  Report out;
  out.table = std::to_string(o.clients) + " clients update one row with optimistic concurrency (network " +
              FormatDuration(o.network.a) + " +- " + FormatDuration(o.network.b) + " each way, base " +
              FormatDuration(o.base) + ", cap " + FormatDuration(o.cap) + ", mean of " + std::to_string(o.runs) +
              " runs from seed " + std::to_string(o.seed) + ")\n\n";
  TextTable t({"strategy", "calls", "calls per client", "completion"});
  out.json["scenario"] = "contention";
  out.json["clients"] = o.clients;
  out.json["base_ms"] = Millis(o.base);
  out.json["cap_ms"] = Millis(o.cap);
  out.json["runs"] = o.runs;
  out.json["seed"] = o.seed;
  out.plot = {.title = "clients done over time, " + std::to_string(o.clients) + " writers on one row",
              .x_label = "milliseconds",
              .y_label = "clients done",
              .lines = {}};
  for (const auto& row : r.rows) {
    const std::string name(sim::StrategyName(row.strategy));
    t.Row({name, Fixed(row.calls, 1), Fixed(row.calls_per_client(), 1), Fixed(Millis(row.completion), 1) + " ms"});
    nlohmann::ordered_json j;
    j["strategy"] = name;
    j["calls"] = Round(row.calls, 2);
    j["succeeded"] = Round(row.succeeded, 2);
    j["calls_per_client"] = Round(row.calls_per_client(), 3);
    j["completion_ms"] = Millis(row.completion);
    render::PlotLine line{.name = name, .x = {0}, .y = {0}};
    for (std::size_t i = 0; i < row.finished.size(); ++i) {
      line.x.push_back(Millis(row.finished[i]));
      line.y.push_back(static_cast<double>(i + 1));
      if (series) j["finished_ms"].push_back(Millis(row.finished[i]));
    }
    out.json["strategies"].push_back(j);
    out.plot.lines.push_back(std::move(line));
  }
  out.table += t.Render();
  return out;
}

}  // namespace stormguard::cli
