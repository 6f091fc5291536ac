package dev.carillon.bench.schedules;

import java.time.ZoneId;
import java.util.List;
import java.util.Objects;

/**
 * Where people live, by IANA zone: the weights {@link ScheduleMix} draws task zones from.
 *
 * <p>The weights are approximate populations in millions: country totals rounded from the UN World
 * Population Prospects 2024 estimates, and a country with several zones (the United States, Brazil,
 * Indonesia, Russia, Australia, Canada, the DR Congo) split between them by a rough share of where
 * its people live. Countries under about 5 million are left out, and a few large ones are reduced
 * to their main zones; the table holds about 7.0 of the world's 8.2 billion, so the large zones'
 * shares are a little larger than the world's (India and China 41 % instead of 35 %). What matters
 * to the bench is the shape: a few offsets (+08:00, +05:30) hold most of the people, zones with one
 * offset fire their 08:00 in the same UTC second, and some offsets are not whole hours (+05:30,
 * +05:45, +06:30, +03:30, +04:30, +10:30 in the southern summer).
 */
public final class ZoneWeights {
  /** One zone and its weight (approximate millions of people). */
  public record ZoneWeight(ZoneId zone, double weight) {
    public ZoneWeight {
      Objects.requireNonNull(zone, "zone");
      if (!(weight > 0)) {
        throw new IllegalArgumentException("weight of " + zone + " must be > 0, was " + weight);
      }
    }
  }

  private static final List<ZoneWeight> POPULATION =
      List.of(
          w("Asia/Kolkata", 1441),
          w("Asia/Shanghai", 1410),
          w("America/New_York", 157),
          w("America/Chicago", 97),
          w("America/Denver", 25),
          w("America/Phoenix", 7),
          w("America/Los_Angeles", 53),
          w("Asia/Jakarta", 200),
          w("Asia/Makassar", 60),
          w("Asia/Karachi", 245),
          w("Africa/Lagos", 229),
          w("Africa/Kinshasa", 40),
          w("Africa/Lubumbashi", 65),
          w("America/Sao_Paulo", 190),
          w("America/Manaus", 15),
          w("Asia/Dhaka", 173),
          w("Europe/Moscow", 110),
          w("Asia/Yekaterinburg", 17),
          w("Asia/Novosibirsk", 12),
          w("Africa/Addis_Ababa", 129),
          w("America/Mexico_City", 110),
          w("Asia/Tokyo", 124),
          w("Asia/Manila", 117),
          w("Africa/Cairo", 115),
          w("Asia/Ho_Chi_Minh", 100),
          w("Asia/Tehran", 90),
          w("Europe/Istanbul", 86),
          w("Europe/Berlin", 84),
          w("Asia/Bangkok", 72),
          w("Europe/London", 69),
          w("Africa/Dar_es_Salaam", 68),
          w("Europe/Paris", 68),
          w("Africa/Johannesburg", 63),
          w("Europe/Rome", 59),
          w("Africa/Nairobi", 56),
          w("Asia/Yangon", 54),
          w("Asia/Seoul", 52),
          w("America/Bogota", 52),
          w("Africa/Khartoum", 50),
          w("Africa/Kampala", 49),
          w("Europe/Madrid", 48),
          w("America/Argentina/Buenos_Aires", 46),
          w("Africa/Algiers", 46),
          w("Asia/Baghdad", 46),
          w("Asia/Kabul", 42),
          w("Africa/Casablanca", 38),
          w("Europe/Kyiv", 37),
          w("Europe/Warsaw", 37),
          w("Asia/Tashkent", 36),
          w("Asia/Kuala_Lumpur", 35),
          w("America/Lima", 34),
          w("Africa/Accra", 34),
          w("Africa/Maputo", 34),
          w("Asia/Riyadh", 33),
          w("Asia/Kathmandu", 31),
          w("America/Caracas", 28),
          w("Asia/Taipei", 23),
          w("Asia/Colombo", 22),
          w("America/Santiago", 20),
          w("Europe/Amsterdam", 18),
          w("America/Guatemala", 18),
          w("America/Toronto", 16),
          w("Asia/Dubai", 10),
          w("Australia/Sydney", 8.5),
          w("Australia/Melbourne", 7),
          w("Australia/Brisbane", 5.5),
          w("America/Vancouver", 5.5),
          w("Asia/Singapore", 6),
          w("Pacific/Auckland", 5),
          w("Australia/Perth", 2.8),
          w("Australia/Adelaide", 1.9));

  private ZoneWeights() {}

  /** The zones and their approximate populations, as described above. */
  public static List<ZoneWeight> population() {
    return POPULATION;
  }

  private static ZoneWeight w(String zone, double millions) {
    return new ZoneWeight(ZoneId.of(zone), millions);
  }
}
