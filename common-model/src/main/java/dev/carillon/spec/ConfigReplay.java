package dev.carillon.spec;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.Problem;
import dev.carillon.model.tuning.ConfigRecord;
import dev.carillon.model.tuning.ConfigSigner;
import dev.carillon.model.tuning.InvalidTuningException;
import dev.carillon.model.tuning.TuningKey;
import dev.carillon.model.tuning.TuningValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The config topic replayed as the retry service applies it: records in offset order, each checked
 * by the same validator ({@link TuningKey#parse}, {@link TuningJson#parse}); a valid record sets
 * its key, a tombstone unsets it, and a rejected record changes nothing, so the value before it
 * stays in force. What it answers is what a retry service that read the topic now would hold. Pure.
 *
 * @param inForce every key with a value in force, by key
 * @param rejected the records the validator refused, in the order read
 */
public record ConfigReplay(SortedMap<String, InForce> inForce, List<Rejected> rejected) {

  /** A key's value in force and the record that set it. */
  public record InForce(String key, TuningValue value, ConfigRecord record) {
    public InForce {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      Objects.requireNonNull(record, "record");
    }
  }

  /**
   * A refused record.
   *
   * @param problems one line per problem, naming the field and the value
   */
  public record Rejected(ConfigRecord record, List<String> problems) {
    public Rejected {
      problems = List.copyOf(problems);
    }
  }

  public ConfigReplay {
    inForce = new TreeMap<>(inForce);
    rejected = List.copyOf(rejected);
  }

  /** Replays {@code records}, which must be in offset order, without checking signatures. */
  public static ConfigReplay of(List<ConfigRecord> records) {
    return of(records, Optional.empty());
  }

  /**
   * Replays {@code records}, which must be in offset order; with {@code signer}, a record whose
   * signature is missing or wrong is rejected first, as the retry service rejects it.
   */
  public static ConfigReplay of(List<ConfigRecord> records, Optional<ConfigSigner> signer) {
    SortedMap<String, InForce> inForce = new TreeMap<>();
    List<Rejected> rejected = new ArrayList<>();
    for (ConfigRecord r : records) {
      Optional<String> unsigned = signer.flatMap(v -> v.problem(r.key(), r.value(), r.signature()));
      if (unsigned.isPresent()) {
        rejected.add(new Rejected(r, List.of(unsigned.get())));
        continue;
      }
      TuningKey key;
      TuningValue value = null;
      try {
        key = TuningKey.parse(r.key());
        if (r.value() != null) {
          value = TuningJson.parse(key, r.value());
        }
      } catch (InvalidValueException e) {
        rejected.add(new Rejected(r, List.of(e.problem().toString())));
        continue;
      } catch (InvalidTuningException e) {
        rejected.add(new Rejected(r, e.problems().stream().map(Problem::toString).toList()));
        continue;
      }
      if (value == null) {
        inForce.remove(key.toString());
      } else {
        inForce.put(key.toString(), new InForce(key.toString(), value, r));
      }
    }
    return new ConfigReplay(inForce, rejected);
  }

  /** The rejected records of one key. */
  public List<Rejected> rejectedOf(String key) {
    return rejected.stream().filter(r -> Objects.equals(r.record().key(), key)).toList();
  }
}
