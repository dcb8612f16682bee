-- Verity 006: training-monitor alarms. The alarm state machine (lib/stats/alarms.ts) is replayed over a run's
-- rollups whenever they change; these tables keep what it concluded, so the Monitors page can say since when and
-- from which step an alarm is amber or red, and so a state change is noticed (and posted to the webhook) once.
-- No foreign key to runs: like the rollups, this is derived data keyed by the run id.

CREATE TYPE "MonitorAlarmState" AS ENUM ('green', 'amber', 'red');

-- The current state of one alarm of one run. rule_hash is the hash of the rule it was evaluated with (thresholds
-- changed: replay from the start); fingerprint summarises the rollups and reviews it was evaluated on (unchanged:
-- nothing to re-evaluate). changed_at is when this state was first persisted; since_step is the step at which the
-- state machine entered it.
CREATE TABLE "monitor_alarms" (
    "run_id" TEXT NOT NULL,
    "alarm" TEXT NOT NULL,
    "state" "MonitorAlarmState" NOT NULL DEFAULT 'green',
    "since_step" INTEGER,
    "at_step" INTEGER,
    "value" DOUBLE PRECISION,
    "message" TEXT NOT NULL DEFAULT '',
    "rule_hash" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL DEFAULT '',
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "evaluated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "monitor_alarms_pkey" PRIMARY KEY ("run_id", "alarm")
);
CREATE INDEX "monitor_alarms_state_idx" ON "monitor_alarms"("state");

-- One row per state change, in the order they were persisted. webhook is null when no webhook was configured,
-- else 'sent' or 'failed: <reason>' (one attempt per change: a receiver that is down does not get a retry storm).
CREATE TABLE "monitor_alarm_events" (
    "id" BIGSERIAL NOT NULL,
    "run_id" TEXT NOT NULL,
    "alarm" TEXT NOT NULL,
    "from_state" "MonitorAlarmState" NOT NULL,
    "to_state" "MonitorAlarmState" NOT NULL,
    "step" INTEGER,
    "value" DOUBLE PRECISION,
    "message" TEXT NOT NULL DEFAULT '',
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "webhook" TEXT,
    CONSTRAINT "monitor_alarm_events_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "monitor_alarm_events_run_id_alarm_id_idx" ON "monitor_alarm_events"("run_id", "alarm", "id");
CREATE INDEX "monitor_alarm_events_at_idx" ON "monitor_alarm_events"("at");
