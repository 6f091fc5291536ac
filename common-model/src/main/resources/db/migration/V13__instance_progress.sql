-- Carillon schema, version 13: an instance keeps its run's latest progress report.
--
-- AgentContext.heartbeat(progress) and an exec agent's progress lines report what a run is doing
-- ("summarised 40 of 120 files"). The latest report and when the agent made it are kept with the
-- instance: written by the worker's lease heartbeat (one statement for all its runs, each row
-- fenced by attempt, a row's progress only when it changed) and by the end write. Only the latest
-- is kept; the history of reports is not written to instance_event, which would add a row per run
-- per heartbeat. A retry's first report replaces the previous attempt's; until then describe shows
-- the old one as earlier than the attempt's start.
--
-- progress is at most 512 characters (dev.carillon.model.instance.Progress.MAX_CHARS), like
-- fail_reason. The history table gets the same columns: archiving copies every live column by name.

ALTER TABLE task_instance ADD COLUMN progress VARCHAR(512);
ALTER TABLE task_instance ADD COLUMN progress_at TIMESTAMP WITH TIME ZONE;

ALTER TABLE task_instance_history ADD COLUMN progress VARCHAR(512);
ALTER TABLE task_instance_history ADD COLUMN progress_at TIMESTAMP WITH TIME ZONE;
