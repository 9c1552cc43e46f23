#include "tma/Report.h"

#include "llvm/Support/JSON.h"

namespace tma {

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

static Value point(const SourcePoint &P) {
  return Object{{"file", P.File}, {"line", P.Line}, {"column", P.Column}, {"offset", P.Offset}};
}

/// The ID of the main reason a descriptor is refused (the first blocker's);
/// every blocker comes from the reason table.
static std::optional<llvm::StringRef> reasonIdOf(const ParamDecision &D) {
  if (D.Rewrite || D.Blockers.empty())
    return std::nullopt;
  return reasonInfo(D.Blockers.front().Reason).Name;
}

static Array editsOf(const RunResult &R, const ParamDecision &D) {
  Array Out;
  if (!D.Rewrite)
    return Out;
  for (const TextEdit &E : finalUnitEdits(R, D.Unit))
    Out.push_back(Object{{"file", E.File},
                         {"offset", E.Offset},
                         {"length", E.Length},
                         {"replacement", E.Text}});
  return Out;
}

/// Every launch of \p D with the form it gets: by value, a snapshot, or
/// refused with its parameter.
static Array launchesOf(const ParamDecision &D) {
  Array Out;
  for (const LaunchChoice &L : D.LaunchChoices) {
    llvm::StringRef Form = !D.Rewrite                        ? "refused"
                           : L.Form == LaunchForm::Snapshot ? "snapshot"
                                                            : "by value";
    Object Launch{{"location", point(L.Where)}, {"form", Form}};
    if (D.Rewrite)
      Launch["argument"] = L.Passed;
    Out.push_back(std::move(Launch));
  }
  return Out;
}

std::string jsonReport(const RunResult &R, const Summary &S, bool Applied) {
  Array TUs;
  for (const TUStatus &TU : R.TUs)
    TUs.push_back(Object{{"file", TU.File},
                         {"failed", TU.Failed},
                         {"skipped", TU.Skipped},
                         {"prefilter", TU.PrefilterReason},
                         {"compilerErrors", int64_t(TU.Errors.size())}});
  Array Descs;
  std::vector<Message> Msgs = messagesFor(R, Applied);
  for (size_t I = 0; I < Msgs.size(); ++I) {
    const ParamDecision &D = R.ThePlan.Params[I];
    Array Notes;
    for (const Note &N : Msgs[I].Notes)
      Notes.push_back(Object{{"message", N.Message}, {"location", point(N.Where)}});
    Object Desc{{"kernel", D.KernelName},
                {"parameter", D.ParamName},
                {"index", D.Index},
                {"location", point(Msgs[I].Where)},
                {"decision", D.Rewrite ? "rewritten" : "refused"},
                {"id", info(Msgs[I].ID).Code},
                {"message", Msgs[I].Text},
                {"notes", std::move(Notes)},
                {"edits", editsOf(R, D)},
                {"launches", launchesOf(D)}};
    if (std::optional<llvm::StringRef> Reason = reasonIdOf(D))
      Desc["reasonId"] = *Reason;
    Descs.push_back(std::move(Desc));
  }
  Object ByID;
  for (auto &[ID, N] : S.RefusedByID)
    ByID[ID] = N;
  Object Sum{{"translationUnits", S.TUs},
             {"translationUnitsFailed", S.TUsFailed},
             {"translationUnitsSkipped", S.TUsSkipped},
             {"kernelsRewritten", S.KernelsRewritten},
             {"kernelsRefused", S.KernelsRefused},
             {"descriptorsRewritten", S.ParamsRewritten},
             {"descriptorsRefused", S.ParamsRefused},
             {"refusedByID", std::move(ByID)},
             {"launchesChanged", S.Launches},
             {"copiesRemoved", S.Copies},
             {"allocationsRemoved", S.Allocs},
             {"freesRemoved", S.Frees},
             {"fencesRemoved", S.Fences},
             {"filesChanged", S.FilesChanged},
             {"compilerErrorsLeft", S.ErrorsLeft}};
  Value Doc = Object{{"tool", "tma-modernize"},
                     {"applied", Applied},
                     {"translationUnits", std::move(TUs)},
                     {"descriptors", std::move(Descs)},
                     {"summary", std::move(Sum)}};
  return llvm::formatv("{0:2}", Doc).str() + "\n";
}

static std::string uriOf(llvm::StringRef File) {
  std::string U = "file://";
  for (char C : File) {
    if (C == ' ' || C == '%' || C == '#' || C == '?')
      U += llvm::formatv("%{0:X2}", (unsigned)(unsigned char)C).str();
    else
      U += C;
  }
  return U;
}

static Value sarifLocation(const SourcePoint &P, llvm::StringRef Message = "") {
  Object Region{{"startLine", std::max(1u, P.Line)}, {"startColumn", std::max(1u, P.Column)}};
  Object L{{"physicalLocation",
            Object{{"artifactLocation", Object{{"uri", uriOf(P.File)}}},
                   {"region", std::move(Region)}}}};
  if (!Message.empty())
    L["message"] = Object{{"text", Message}};
  return L;
}

std::string sarifReport(const RunResult &R, bool Applied) {
  Array Rules;
  for (const DiagInfo &D : allDiagnostics())
    Rules.push_back(Object{
        {"id", D.Code},
        {"name", D.Code},
        {"shortDescription", Object{{"text", D.Summary}}},
        {"fullDescription", Object{{"text", D.Summary}}},
        {"help", Object{{"text", D.Advice}}},
        {"defaultConfiguration",
         Object{{"level", D.Level == Severity::Error ? "error" : "warning"}}}});
  Array Results;
  std::vector<Message> Msgs = messagesFor(R, Applied);
  for (size_t I = 0; I < Msgs.size(); ++I) {
    const Message &M = Msgs[I];
    const ParamDecision &D = R.ThePlan.Params[I];
    const DiagInfo &Info = info(M.ID);
    Array Related;
    int64_t NoteID = 0;
    for (const Note &N : M.Notes)
      if (N.Where.valid()) {
        Value L = sarifLocation(N.Where, N.Message);
        L.getAsObject()->try_emplace("id", NoteID++);
        Related.push_back(std::move(L));
      }
    Object Result{{"ruleId", Info.Code},
                  {"level", Info.Level == Severity::Error ? "error" : "warning"},
                  {"message", Object{{"text", M.Text}}},
                  {"locations", Array{sarifLocation(M.Where)}}};
    if (!Related.empty())
      Result["relatedLocations"] = std::move(Related);
    if (std::optional<llvm::StringRef> Reason = reasonIdOf(D))
      Result["properties"] = Object{{"reasonId", *Reason}};
    if (D.Rewrite) {
      std::map<std::string, Array> ByFile;
      for (const TextEdit &E : finalUnitEdits(R, D.Unit))
        ByFile[E.File].push_back(Object{
            {"deletedRegion", Object{{"charOffset", E.Offset}, {"charLength", E.Length}}},
            {"insertedContent", Object{{"text", E.Text}}}});
      Array Changes;
      for (auto &[File, Reps] : ByFile)
        Changes.push_back(Object{{"artifactLocation", Object{{"uri", uriOf(File)}}},
                                 {"replacements", std::move(Reps)}});
      Result["fixes"] = Array{Object{
          {"description", Object{{"text", "pass '" + D.ParamName + "' by value"}}},
          {"artifactChanges", std::move(Changes)}}};
    }
    Results.push_back(std::move(Result));
  }
  Value Doc = Object{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       Array{Object{{"tool", Object{{"driver", Object{{"name", "tma-modernize"},
                                                      {"version", "0.1"},
                                                      {"rules", std::move(Rules)}}}}},
                    {"results", std::move(Results)}}}}};
  return llvm::formatv("{0:2}", Doc).str() + "\n";
}

} // namespace tma
