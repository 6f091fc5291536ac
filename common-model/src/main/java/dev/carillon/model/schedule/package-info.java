/**
 * The pure schedule domain: cron expressions evaluated in a task's zone ({@link
 * dev.carillon.model.schedule.CronSchedule}, including its explicit daylight-saving policy) and the
 * mapping from fire times to business windows ({@link dev.carillon.model.schedule.WindowKind}). No
 * IO and no clock: every function takes the instants it works on.
 */
package dev.carillon.model.schedule;
