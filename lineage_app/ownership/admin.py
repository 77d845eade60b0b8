"""Admin for owners and assignments: hand-set ones mirrored into the graph on save, CSV import and export."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path
from django.utils import timezone

from lineage_app.accounts.admin_roles import EditorMixin
from lineage_app.accounts.roles import can_edit_ownership
from lineage_app.ownership import services
from lineage_app.ownership.models import Owner, OwnershipAssignment

MAX_CSV_BYTES = 5 * 1024 * 1024


@admin.register(Owner)
class OwnerAdmin(EditorMixin, admin.ModelAdmin):
    list_display = ("name", "kind", "email", "channel", "updated_at")
    list_filter = ("kind",)
    search_fields = ("name", "email", "channel")

    def save_model(self, request: HttpRequest, obj: Owner, form: Any, change: bool) -> None:
        previous = Owner.objects.filter(pk=obj.pk).values_list("name", flat=True).first() if change else None
        services.owner_save(owner=obj, previous_name=previous)

    def delete_model(self, request: HttpRequest, obj: Owner) -> None:
        services.owners_delete(owners=[obj])

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Owner]) -> None:
        services.owners_delete(owners=queryset)


class AssignmentForm(forms.ModelForm):
    role = forms.ChoiceField(choices=OwnershipAssignment.Role.choices)

    class Meta:
        model = OwnershipAssignment
        fields = ("owner", "target_type", "namespace", "name", "role")

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        owner = data.get("owner")
        row = {
            "owner": owner.name if owner else "",
            "target_type": data.get("target_type") or "",
            "namespace": data.get("namespace") or "",
            "name": data.get("name") or "",
            "role": data.get("role") or "",
        }
        for problem in services.assignment_problems(row):
            if problem.column in self.fields and problem.column not in self.errors:
                self.add_error(problem.column, problem.problem)
        return data


class CsvImportForm(forms.Form):
    file = forms.FileField(help_text="Columns: " + ",".join(services.CSV_COLUMNS) + " (and optionally source)")


@admin.register(OwnershipAssignment)
class OwnershipAssignmentAdmin(EditorMixin, admin.ModelAdmin):
    form = AssignmentForm
    list_display = ("owner", "role", "target_type", "namespace", "name", "source", "updated_at")
    list_filter = ("source", "target_type", "role")
    search_fields = ("owner__name", "namespace", "name")
    list_select_related = ("owner",)
    autocomplete_fields = ("owner",)
    change_list_template = "admin/catalog/ownershipassignment/change_list.html"

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Event-sourced rows are a record of what events said: the events own them.
        if obj is not None and obj.source == OwnershipAssignment.Source.EVENT:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is not None and obj.source == OwnershipAssignment.Source.EVENT:
            return False
        return super().has_delete_permission(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("source",) if obj is not None else ()

    def save_model(self, request: HttpRequest, obj: OwnershipAssignment, form: Any, change: bool) -> None:
        previous = OwnershipAssignment.objects.select_related("owner").filter(pk=obj.pk).first() if change else None
        services.assignment_save(assignment=obj, previous=previous)

    def delete_model(self, request: HttpRequest, obj: OwnershipAssignment) -> None:
        services.assignments_delete(assignments=[obj])

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[OwnershipAssignment]) -> None:
        manual = queryset.filter(source=OwnershipAssignment.Source.MANUAL)
        skipped = queryset.count() - manual.count()
        services.assignments_delete(assignments=manual)
        if skipped:
            self.message_user(
                request, f"Kept {skipped} event-sourced assignment(s): events own them.", messages.WARNING
            )

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        return [
            path("export-csv/", wrap(self.export_csv), name="catalog_ownershipassignment_export_csv"),
            path("import-csv/", wrap(self.import_csv), name="catalog_ownershipassignment_import_csv"),
            *super().get_urls(),
        ]

    def export_csv(self, request: HttpRequest) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        response = HttpResponse(services.assignments_export_csv(), content_type="text/csv; charset=utf-8")
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response["Content-Disposition"] = f'attachment; filename="ownership-{stamp}.csv"'
        return response

    def import_csv(self, request: HttpRequest) -> HttpResponse:
        if not can_edit_ownership(request.user):
            raise PermissionDenied
        problems: list[services.RowProblem] = []
        form = CsvImportForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            upload = form.cleaned_data["file"]
            try:
                if upload.size > MAX_CSV_BYTES:
                    raise services.CsvImportInvalid(
                        [services.RowProblem(1, "-", f"the file is larger than {MAX_CSV_BYTES} bytes")]
                    )
                try:
                    text = upload.read().decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise services.CsvImportInvalid(
                        [services.RowProblem(1, "-", "the file is not UTF-8 text")]
                    ) from exc
                result = services.assignments_import_csv(text=text)
            except services.CsvImportInvalid as exc:
                problems = exc.problems
                self.message_user(
                    request, f"Nothing was imported: {len(problems)} problem(s), listed below.", messages.ERROR
                )
            else:
                self.message_user(
                    request,
                    f"Imported: {result.created} new assignment(s), {result.unchanged} already present, "
                    f"{result.skipped_event_rows} event-sourced row(s) skipped.",
                    messages.SUCCESS,
                )
                return redirect("admin:catalog_ownershipassignment_changelist")
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Import ownership assignments from CSV",
            "form": form,
            "problems": problems,
            "columns": ",".join(services.CSV_COLUMNS),
        }
        return TemplateResponse(
            request, "admin/catalog/ownershipassignment/import_csv.html", context, status=400 if problems else 200
        )
