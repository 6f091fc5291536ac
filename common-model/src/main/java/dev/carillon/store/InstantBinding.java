package dev.carillon.store;

import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.jooq.Binding;
import org.jooq.BindingGetResultSetContext;
import org.jooq.BindingGetSQLInputContext;
import org.jooq.BindingGetStatementContext;
import org.jooq.BindingRegisterContext;
import org.jooq.BindingSQLContext;
import org.jooq.BindingSetSQLOutputContext;
import org.jooq.BindingSetStatementContext;
import org.jooq.Converter;
import org.jooq.conf.ParamType;
import org.jooq.impl.DSL;

/**
 * How every {@code timestamptz} column of the generated jOOQ classes travels: as {@link Instant} in
 * Java, handed to and read from the PostgreSQL driver as an {@link OffsetDateTime}.
 *
 * <p>jOOQ's own binding reads a {@code timestamptz} as text and parses it, and the driver, which
 * received it in binary, first formats that text in the client's zone; a converter then turns the
 * parsed {@code OffsetDateTime} into an {@code Instant}: a round trip through text for every
 * timestamp on the claim and end paths. Here the driver decodes the value itself ({@code
 * getObject(i, OffsetDateTime.class)}), in UTC.
 */
public final class InstantBinding implements Binding<OffsetDateTime, Instant> {
  private static final long serialVersionUID = 1L;

  private static final Converter<OffsetDateTime, Instant> CONVERTER =
      Converter.ofNullable(
          OffsetDateTime.class,
          Instant.class,
          OffsetDateTime::toInstant,
          i -> i.atOffset(ZoneOffset.UTC));

  @Override
  public Converter<OffsetDateTime, Instant> converter() {
    return CONVERTER;
  }

  @Override
  public void sql(BindingSQLContext<Instant> ctx) {
    if (ctx.render().paramType() == ParamType.INLINED) {
      Instant v = ctx.value();
      ctx.render().visit(DSL.inline(v == null ? null : v.atOffset(ZoneOffset.UTC)));
    } else {
      // Typed, so that PostgreSQL never has to guess (e.g. inside greatest() or a CASE).
      ctx.render().sql(ctx.variable()).sql("::timestamptz");
    }
  }

  @Override
  public void register(BindingRegisterContext<Instant> ctx) throws SQLException {
    ctx.statement().registerOutParameter(ctx.index(), Types.TIMESTAMP_WITH_TIMEZONE);
  }

  @Override
  public void set(BindingSetStatementContext<Instant> ctx) throws SQLException {
    Instant v = ctx.value();
    if (v == null) {
      ctx.statement().setNull(ctx.index(), Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      ctx.statement().setObject(ctx.index(), v.atOffset(ZoneOffset.UTC));
    }
  }

  @Override
  public void get(BindingGetResultSetContext<Instant> ctx) throws SQLException {
    OffsetDateTime v = ctx.resultSet().getObject(ctx.index(), OffsetDateTime.class);
    ctx.value(v == null ? null : v.toInstant());
  }

  @Override
  public void get(BindingGetStatementContext<Instant> ctx) throws SQLException {
    OffsetDateTime v = ctx.statement().getObject(ctx.index(), OffsetDateTime.class);
    ctx.value(v == null ? null : v.toInstant());
  }

  @Override
  public void set(BindingSetSQLOutputContext<Instant> ctx) throws SQLException {
    throw new SQLFeatureNotSupportedException("timestamptz in a user-defined type");
  }

  @Override
  public void get(BindingGetSQLInputContext<Instant> ctx) throws SQLException {
    throw new SQLFeatureNotSupportedException("timestamptz in a user-defined type");
  }
}
