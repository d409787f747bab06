// The factory, the kinds' names and the test hook.
#include <stdexcept>
#include <utility>

#include "mpinotify/exchange.hpp"
#include "notified_exchange.hpp"
#include "notified_routes.hpp"
#include "tag_exchange.hpp"

namespace mpinotify {

std::string_view to_string(ExchangeKind kind) noexcept {
  switch (kind) {
    case ExchangeKind::TAG: return "TAG";
    case ExchangeKind::NOTIFIED: return "NOTIFIED";
  }
  return "unknown";
}

std::unique_ptr<MetadataPayloadExchange> make_exchange(
    ExchangeKind kind, MPI_Comm comm, int op_id, std::vector<int> peers, AllocateFn allocate_fn,
    std::chrono::nanoseconds allocation_timeout, std::shared_ptr<BufferResource> buffer_resource,
    ExchangeOptions options) {
  detail::ExchangeSetup setup =
      detail::check_setup(comm, op_id, std::move(peers), std::move(allocate_fn), allocation_timeout,
                          std::move(buffer_resource), options);
  switch (kind) {
    case ExchangeKind::TAG: return std::make_unique<detail::TagExchange>(std::move(setup));
    case ExchangeKind::NOTIFIED:
      return std::make_unique<detail::NotifiedExchange>(
          std::move(setup),
          detail::NotifiedOptions{.ring_budget_bytes = detail::ring_budget_from_environment(),
                                  .routes = detail::route_options_from_environment()});
  }
  throw std::invalid_argument("make_exchange: unknown ExchangeKind");
}

namespace testing {

void inject_raw_record(MetadataPayloadExchange &exchange, int peer,
                       std::span<const std::byte> bytes) {
  auto *engine = dynamic_cast<detail::ExchangeEngine *>(&exchange);
  if (engine == nullptr) {
    throw std::invalid_argument("inject_raw_record: not an exchange made by make_exchange");
  }
  engine->inject_raw_record(peer, bytes);
}

}  // namespace testing
}  // namespace mpinotify
