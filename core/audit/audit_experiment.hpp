#pragma once
// An audit drawn as a storm: the requests the fingerprint replayed become the
// target's lane (each at the time the target saw it, per probe key), and the
// fingerprint's model decides the same arrivals in a second lane, so the
// window's lanes, Summary, history and report show a foreign limiter's
// decisions beside the algorithm that explains them. The experiment has the
// shape of an http storm's (compared_runs.hpp): the target's run, then its
// model run; each probe key is one client.

#include "audit/audit_spec.hpp"
#include "storm/experiment.hpp"

namespace rl {

/// `report`'s fingerprinted arrivals as the target's run and the fingerprint's model run; no runs when
/// the fingerprint named no model (nothing was replayed).
ExperimentResult auditExperiment(const AuditReport& report);

}  // namespace rl
