// stormguard/pipeline/stage_placement.h: where a stage may sit in a pipeline, as data.
//
// Every stage declares its placement (Stage::placement()); the builder
// checks the declared rules of all stages once, in Build(), without knowing
// any stage kind, so adding a policy never means editing the builder. The
// description is independent of how a stage runs, so any driver of a
// pipeline can check and use the same rules:
//
//   static constexpr PlacementRule kRules[] = {
//       {PlacementRule::kInside, "retry", "it bounds one attempt; add it after AddRetry"}};
//   static constexpr StagePlacement kPlacement{.kind = "attempt_timeout", .once = true, .rules = kRules};
//
// CheckPlacements() is that rule: PipelineBuilder::Build() applies it to the
// stages it holds, and the configuration reader to the stages a file lists.
//
// Thread safety: constant data; CheckPlacements is a pure function.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stormguard {

// One ordering rule: the stage must sit inside (be added after) or outside
// (be added before) the first stage of kind `of`, for the reason `why`.
// A pipeline without a stage of kind `of` satisfies it. Build() reports a
// broken rule as "stages[4] (hedge): outside retry (stages[1]) <why>".
struct PlacementRule {
  enum Side : bool { kInside, kOutside };
  Side side;
  std::string_view of;
  std::string_view why;  // what goes wrong there, and what to do instead
};

// Where a stage belongs and what the pipeline needs to know about it. Plain
// data: the builder reads it once, and any driver can apply the same rules.
// Built-in stages keep theirs in a constexpr constant.
struct StagePlacement {
  // What rules and error messages call the stage; empty: its name().
  std::string_view kind;
  bool once = false;  // a pipeline may hold one stage of this kind
  std::span<const PlacementRule> rules;
  // It runs the attempts itself and reports each one's end (kAttemptEnded),
  // so the call need not (retry, hedge).
  bool reports_attempt_end = false;
  // It runs the stages after it on several threads at once (hedge).
  bool concurrent = false;
};

// An ordering mistake of the stage at `index` (outermost is 0), e.g.
// "outside retry (stages[1]) every hedged attempt would retry on its own; ...".
struct PlacementError {
  std::size_t index;
  std::string reason;
};

// Every ordering mistake of `stages` (outermost first): a second stage of a
// kind that allows one, and each broken rule, checked against the
// outermost stage of the kind the rule names.
std::vector<PlacementError> CheckPlacements(std::span<const StagePlacement> stages);

}  // namespace stormguard
